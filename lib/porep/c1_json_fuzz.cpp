// libFuzzer target: the C1 format (porep/c1_json.hpp), both JSON decoders.
//
// Every input is decoded as a whole C1 file (decode_c1_file) and as the inner commit phase 1
// output (decode_c1_output_json), each with the nlohmann and the simdjson decoder. Contract:
// bad input is c2lab::error, and, as c1_json.hpp documents, the two decoders "produce
// identical structures and the same error kinds": both succeed with equal results, or both
// throw c2lab::error of the same kind. The documented exceptions are what simdjson refuses
// while parsing and nlohmann does not: an integer >= 2^64 (nlohmann reads it as a float and
// meets it later, or never: an ignored key) and nesting deeper than 1024. What decodes also
// re-encodes (encode_c1_file / encode_c1_output_json) to text that decodes to the same value.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.hpp"
#include "porep/c1_json.hpp"

namespace {

using c2lab::porep::c1_json_decoder;

template <class T>
struct outcome {
    std::optional<T> value;
    c2lab::errc kind = c2lab::errc::internal;
    std::string message;
};

template <class T, class F>
outcome<T> run(F&& f) {
    outcome<T> o;
    try {
        o.value = f();
    } catch (const c2lab::error& e) {
        o.kind = e.kind();
        o.message = e.what();
    }
    return o;
}

// simdjson refused, while parsing, what c1_json.hpp says nlohmann may accept: an integer
// >= 2^64, or a document nested deeper than 1024.
bool documented_simdjson_refusal(const std::string& message) {
    return message.find("not valid JSON (simdjson: Problem while parsing a number") != std::string::npos ||
           message.find("not valid JSON (simdjson: The JSON document was too deep") != std::string::npos;
}

[[noreturn]] void disagree(const char* what, const std::string& nlohmann, const std::string& simdjson) {
    std::fprintf(stderr, "c1_json decoders disagree on %s:\n  nlohmann: %s\n  simdjson: %s\n", what, nlohmann.c_str(),
                 simdjson.c_str());
    std::abort();
}

template <class T>
void compare(const char* what, const outcome<T>& n, const outcome<T>& s) {
    const auto show = [](const outcome<T>& o) { return o.value ? std::string("decoded") : o.message; };
    if (n.value && s.value) {
        if (!(*n.value == *s.value)) disagree(what, "decoded", "decoded to a different value");
        return;
    }
    if (!n.value && !s.value && n.kind == s.kind) return;
    if (!s.value && documented_simdjson_refusal(s.message)) return;
    disagree(what, show(n), show(s));
}

template <class T, class Decode, class Encode>
void check(const char* what, std::string_view text, Decode&& decode, Encode&& encode) {
    const auto n = run<T>([&] { return decode(text, c1_json_decoder::nlohmann); });
    const auto s = run<T>([&] { return decode(text, c1_json_decoder::simdjson); });
    compare(what, n, s);
    if (n.value) {
        const std::string again = encode(*n.value);
        if (!(decode(again, c1_json_decoder::nlohmann) == *n.value)) {
            std::fprintf(stderr, "%s: decode(encode(x)) != x\n", what);
            std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    namespace porep = c2lab::porep;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    check<porep::c1_file>(
        "decode_c1_file", text, [](std::string_view t, c1_json_decoder d) { return porep::decode_c1_file(t, d); },
        [](const porep::c1_file& f) { return porep::encode_c1_file(f); });
    check<porep::c1_output>(
        "decode_c1_output_json", text,
        [](std::string_view t, c1_json_decoder d) { return porep::decode_c1_output_json(t, d); },
        [](const porep::c1_output& o) { return porep::encode_c1_output_json(o); });
    return 0;
}
