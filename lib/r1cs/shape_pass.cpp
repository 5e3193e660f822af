#include "r1cs/shape_pass.hpp"

#include <bit>
#include <cstring>

#include <openssl/evp.h>

#include "core/error.hpp"
#include "core/hex.hpp"
#include "r1cs/linear_combination.hpp"

namespace c2lab::r1cs {

namespace {
constexpr char digest_prefix[] = "c2lab r1cs shape v1";  // hashed with its terminating zero
}  // namespace

// SHA-256 over bytes gathered in a buffer (one EVP update per 64 KiB, not per term). The words
// go in with one 8-byte store each: on a little-endian host (every one c2lab builds for) their
// bytes in memory are already the digest's little-endian encoding. Before, each word went
// through std::vector::insert: 13% of a 2 KiB pass on the family-23 EPYC (perf).
class shape_pass::hasher {
public:
    hasher() : ctx_(EVP_MD_CTX_new()), buf_(std::make_unique<uint8_t[]>(capacity + slack)) {
        if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1)
            throw error(errc::internal, "shape_pass: cannot start SHA-256");
    }
    ~hasher() { EVP_MD_CTX_free(ctx_); }
    hasher(const hasher&) = delete;
    hasher& operator=(const hasher&) = delete;

    void put_u64(uint64_t x) { store<8>(&x); }
    void put_fr(const fr& x) { store<32>(x.mont.data()); }  // four limbs, least significant first
    template <size_t N>
    void store(const void* p) {  // N bytes as they lie in memory; pos_ < capacity before
        static_assert(std::endian::native == std::endian::little, "the digest's words are stored as they lie in memory");
        static_assert(N <= slack);
        std::memcpy(buf_.get() + pos_, p, N);
        pos_ += N;
        if (pos_ >= capacity) flush();
    }
    std::array<uint8_t, 32> finish() {
        flush();
        std::array<uint8_t, 32> out{};
        unsigned len = 0;
        if (EVP_DigestFinal_ex(ctx_, out.data(), &len) != 1 || len != out.size())
            throw error(errc::internal, "shape_pass: SHA-256 failed");
        return out;
    }

private:
    static constexpr size_t capacity = size_t{1} << 16;
    static constexpr size_t slack = 32;  // the largest store past capacity - 1
    void flush() {
        if (pos_ == 0) return;
        if (EVP_DigestUpdate(ctx_, buf_.get(), pos_) != 1) throw error(errc::internal, "shape_pass: SHA-256 failed");
        pos_ = 0;
    }
    EVP_MD_CTX* ctx_;
    std::unique_ptr<uint8_t[]> buf_;
    size_t pos_ = 0;
};

std::string circuit_shape::digest_hex() const { return to_hex(digest); }

shape_pass::shape_pass() : h_(std::make_unique<hasher>()) {
    h_->store<sizeof digest_prefix>(digest_prefix);
    push_input();  // the one
}

shape_pass::~shape_pass() = default;

variable shape_pass::push_input() {
    if (inputs_enforced_ || finished_)
        throw error(errc::internal, "shape_pass: input allocated after the input constraints");
    b_input_density_.push_back(false);
    return variable::input(b_input_density_.size() - 1);
}

void shape_pass::put_lc(const lc_type& lc, density_bitmap* input_density, density_bitmap* aux_density) {
    h_->put_u64(lc.inputs().size());
    h_->put_u64(lc.aux().size());
    auto side = [&](const vec_indexer& terms, density_bitmap* density) {
        for (const auto& [index, coeff] : terms) {
            uint64_t tag;
            if (coeff.is_zero()) {
                tag = 3;
            } else {
                tag = coeff.is_one() ? 0 : coeff == detail::minus_one_fr ? 1 : 2;
                if (density) density->set(index);
            }
            h_->put_u64(uint64_t(index) << 2 | tag);
            if (tag == 2) h_->put_fr(coeff);
        }
    };
    side(lc.inputs(), input_density);
    side(lc.aux(), aux_density);
    entries_ += lc.size();
}

void shape_pass::record(const lc_type& a, const lc_type& b, const lc_type& c) {
    if (inputs_enforced_ || finished_)
        throw error(errc::internal, "shape_pass: constraint enforced after the input constraints");
    put_lc(a, nullptr, &a_aux_density_);
    put_lc(b, &b_input_density_, &b_aux_density_);
    put_lc(c, nullptr, nullptr);
    ++constraints_;
}

void shape_pass::enforce_input_constraints() {
    if (inputs_enforced_ || finished_) throw error(errc::internal, "shape_pass: input constraints enforced twice");
    inputs_enforced_ = true;
    const size_t inputs = num_inputs();
    lc_type empty;
    for (size_t i = 0; i < inputs; ++i) {
        lc_type a;
        a.add(variable::input(i), fr::one());
        put_lc(a, nullptr, nullptr);  // A's inputs are not tracked: the a query holds every input
        put_lc(empty, nullptr, nullptr);
        put_lc(empty, nullptr, nullptr);
        ++constraints_;
    }
}

circuit_shape shape_pass::finish() {
    if (finished_) throw error(errc::internal, "shape_pass: finished twice");
    if (!inputs_enforced_) enforce_input_constraints();
    finished_ = true;
    circuit_shape s;
    s.constraints = constraints_;
    s.inputs = num_inputs();
    s.aux = aux_;
    s.a_aux_density = a_aux_density_.count();
    s.b_input_density = b_input_density_.count();
    s.b_aux_density = b_aux_density_.count();
    s.matrix_entries = entries_;
    h_->put_u64(s.constraints);
    h_->put_u64(s.inputs);
    h_->put_u64(s.aux);
    s.digest = h_->finish();
    return s;
}

circuit_shape shape_of(const std::function<void(shape_pass&)>& synthesize) {
    shape_pass pass;
    synthesize(pass);
    return pass.finish();
}

}  // namespace c2lab::r1cs
