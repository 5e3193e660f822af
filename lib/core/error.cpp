#include "core/error.hpp"

namespace c2lab {

std::string_view to_string(errc kind) noexcept {
    switch (kind) {
        case errc::bad_input: return "bad input";
        case errc::bad_length: return "bad length";
        case errc::non_canonical: return "non-canonical field element";
        case errc::bad_flags: return "bad encoding flags";
        case errc::not_on_curve: return "point not on curve";
        case errc::not_in_subgroup: return "point not in subgroup";
        case errc::io: return "i/o error";
        case errc::resource: return "insufficient resources";
        case errc::device: return "device error";
        case errc::internal: return "internal error";
    }
    return "unknown error";
}

}  // namespace c2lab
