// The layout reader; see c1_layout.hpp. Every token is matched exactly (keys with their quotes,
// colons and commas as one literal), so whatever it accepts is valid JSON with the fields in
// serde's order, single values and no whitespace, for which the DOM walker of c1_json.cpp
// decodes the same value. Leaving the layout throws `miss`, caught at the top.
#include "porep/c1_layout.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "core/base64.hpp"
#include "core/error.hpp"
#include "core/huge_pages.hpp"
#include "core/parallel.hpp"
#include "ff/fields.hpp"
#include "porep/params.hpp"

namespace c2lab::porep {

namespace {

struct miss {};  // the text is not in the layout (or is not valid): the DOM walker decides

[[noreturn]] void leave() { throw miss{}; }

bool is_canonical(const domain& d) noexcept {
    if (d[31] < 0x73) return true;  // r = 0x73eda753...: anything with a smaller top byte is below it
    ff::fr::repr x{};
    for (size_t i = 0; i < 32; ++i) x[i / 8] |= uint64_t{d[i]} << (8 * (i % 8));
    return ff::fr::is_canonical(x);
}

// The bytes bytes32 reads from its start on its fast path: '[' and five vectors of 32.
constexpr size_t bytes32_reach = 1 + 5 * 32;

#if defined(__AVX2__)
// 160 bits, bit i for q[i].
struct bits160 {
    uint64_t w[3];
    bits160 operator&(const bits160& o) const noexcept { return {{w[0] & o.w[0], w[1] & o.w[1], w[2] & o.w[2]}}; }
    bits160 operator|(const bits160& o) const noexcept { return {{w[0] | o.w[0], w[1] | o.w[1], w[2] | o.w[2]}}; }
    bits160 operator~() const noexcept { return {{~w[0], ~w[1], ~w[2]}}; }
    bool any() const noexcept { return (w[0] | w[1] | w[2]) != 0; }
    // bit i of x.up(k) is bit i - k of x (the byte k before); of x.down(1), bit i + 1.
    bits160 up(unsigned k) const noexcept {
        return {{w[0] << k, (w[1] << k) | (w[0] >> (64 - k)), (w[2] << k) | (w[1] >> (64 - k))}};
    }
    bits160 down1() const noexcept { return {{(w[0] >> 1) | (w[1] << 63), (w[1] >> 1) | (w[2] << 63), w[2] >> 1}}; }
    static bits160 below(size_t t) noexcept {  // bits [0, t), t < 160
        bits160 b{{0, 0, 0}};
        for (size_t k = 0; k < 3; ++k) {
            const size_t lo = 64 * k;
            b.w[k] = t >= lo + 64 ? ~uint64_t{0} : t > lo ? (uint64_t{1} << (t - lo)) - 1 : 0;
        }
        return b;
    }
};

// The 160 bytes from q classified (digit, comma, '0'), and at every position the value of the
// number that would end there: the digit plus ten times the digit before and a hundred times
// the one before that, where those are digits, saturated at 255 with the overflow flagged.
struct scan160 {
    bits160 digit, comma, zero, overflow;
    alignas(32) uint8_t value[160];
};

// x shifted up by one (or two) bytes across the 256-bit vector, prev's top bytes entering.
inline __m256i up1(__m256i x, __m256i prev) noexcept {
    return _mm256_alignr_epi8(x, _mm256_permute2x128_si256(prev, x, 0x21), 15);
}
inline __m256i up2(__m256i x, __m256i prev) noexcept {
    return _mm256_alignr_epi8(x, _mm256_permute2x128_si256(prev, x, 0x21), 14);
}

// Blocks [k0, k1) of the five 32-byte blocks; `prev` carries the digits of the block before.
struct scan_state {
    __m256i d = _mm256_setzero_si256(), is = _mm256_setzero_si256();  // q[-1] is '[': no digit
    uint32_t m[4][5] = {};
};
inline void scan(const char* q, scan160& s, scan_state& st, int k0, int k1) noexcept {
    const __m256i below_0 = _mm256_set1_epi8('0' - 1), above_9 = _mm256_set1_epi8('9' + 1),
                  comma = _mm256_set1_epi8(','), zero_char = _mm256_set1_epi8('0'), two = _mm256_set1_epi8(2),
                  ones = _mm256_set1_epi8(-1);
    const __m256i times10 = _mm256_setr_epi8(0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 0, 0, 0, 0, 0, 0, 0, 10, 20, 30,
                                             40, 50, 60, 70, 80, 90, 0, 0, 0, 0, 0, 0);
    const __m256i times100 = _mm256_setr_epi8(0, 100, -56 /* 200 */, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0,
                                              100, -56, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0);
    for (int k = k0; k < k1; ++k) {
        const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(q + 32 * k));
        const __m256i is = _mm256_and_si256(_mm256_cmpgt_epi8(c, below_0), _mm256_cmpgt_epi8(above_9, c));
        const __m256i d = _mm256_and_si256(_mm256_sub_epi8(c, zero_char), is);  // 0..9, 0 off digits
        const __m256i d1 = up1(d, st.d), d2 = up2(d, st.d), is1 = up1(is, st.is);
        const __m256i units_tens = _mm256_add_epi8(d, _mm256_shuffle_epi8(times10, d1));  // <= 99
        const __m256i hundreds = _mm256_and_si256(_mm256_shuffle_epi8(times100, d2), is1);
        const __m256i sat = _mm256_adds_epu8(units_tens, hundreds);
        const __m256i wrapped = _mm256_add_epi8(units_tens, hundreds);
        const __m256i big = _mm256_and_si256(_mm256_cmpgt_epi8(d2, two), is1);  // hundreds digit >= 3
        const __m256i over = _mm256_or_si256(big, _mm256_xor_si256(_mm256_cmpeq_epi8(sat, wrapped), ones));
        _mm256_store_si256(reinterpret_cast<__m256i*>(s.value + 32 * k), sat);
        st.m[0][k] = static_cast<uint32_t>(_mm256_movemask_epi8(is));
        st.m[1][k] = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, comma)));
        st.m[2][k] = static_cast<uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(c, zero_char)));
        st.m[3][k] = static_cast<uint32_t>(_mm256_movemask_epi8(over));
        st.d = d;
        st.is = is;
    }
    const auto join = [](const uint32_t* x) {
        return bits160{{x[0] | uint64_t{x[1]} << 32, x[2] | uint64_t{x[3]} << 32, x[4]}};
    };
    s.digit = join(st.m[0]);
    s.comma = join(st.m[1]);
    s.zero = join(st.m[2]);
    s.overflow = join(st.m[3]);
}
#endif

struct reader {
    reader(const char* begin, const char* end_) : p(begin), end(end_) {}
    const char* p;
    const char* end;
    std::vector<domain> scratch;  // one list of hashes at a time

    // An exact run of characters.
    void lit(std::string_view s) {
        if (static_cast<size_t>(end - p) < s.size() || std::memcmp(p, s.data(), s.size()) != 0) leave();
        p += s.size();
    }
    bool at(char c) const noexcept { return p < end && *p == c; }
    bool at(std::string_view s) const noexcept {
        return static_cast<size_t>(end - p) >= s.size() && std::memcmp(p, s.data(), s.size()) == 0;
    }
    void ch(char c) {
        if (!at(c)) leave();
        ++p;
    }
    static bool digit(char c) noexcept { return static_cast<unsigned>(c - '0') <= 9; }

    // An integer as serde writes it: no sign, no leading zero, no fraction or exponent (the
    // next literal refuses those). 20 digits (2^64 and up, or close) are left to the decoders.
    uint64_t u64() {
        const char* s = p;
        if (p >= end || !digit(*p)) leave();
        if (*p == '0') {
            ++p;
            if (p < end && digit(*p)) leave();
            return 0;
        }
        uint64_t v = 0;
        for (; p < end && digit(*p); ++p) {
            if (p - s == 19) leave();
            v = v * 10 + static_cast<uint64_t>(*p - '0');
        }
        return v;
    }
    uint32_t u32() {
        const uint64_t v = u64();
        if (v > 0xffffffffu) leave();
        return static_cast<uint32_t>(v);
    }

    // [u8; 32]: "[b,b,...,b]", each 0..255. On the fast path the 160 bytes after '[' are
    // classified at once (digit, comma, other): the first "other" must be the ']' with 31 commas
    // before it, and each number, the 1 to 3 digits before its comma, is read from the bytes
    // just before that comma, independently of the others (no chain from one number's length
    // to the next one's start).
    void bytes32(std::array<uint8_t, 32>& out) {
#if defined(__AVX2__)
        if (static_cast<size_t>(end - p) >= bytes32_reach && *p == '[') {
            const char* q = p + 1;
            // The first 128 bytes hold almost every array (at most 129 bytes after '['): the
            // last block only when the terminator is not among them. Positions from the
            // terminator on are masked off below, so the bits of an unscanned block stay zero.
            scan160 sc;
            scan_state st;
            scan(q, sc, st, 0, 4);
            // The terminator: the first byte that is neither a digit nor a comma, a ']'.
            bits160 other = ~(sc.digit | sc.comma);
            size_t t = 0;
            if (other.w[0] != 0) {
                t = static_cast<size_t>(__builtin_ctzll(other.w[0]));
            } else if (other.w[1] != 0) {
                t = 64 + static_cast<size_t>(__builtin_ctzll(other.w[1]));
            } else {
                scan(q, sc, st, 4, 5);
                other = ~(sc.digit | sc.comma);
                if ((other.w[2] & 0xffffffffu) == 0) leave();
                t = 128 + static_cast<size_t>(__builtin_ctzll(other.w[2]));
            }
            if (q[t] != ']') leave();
            const bits160 inside = bits160::below(t);
            const bits160 commas = sc.comma & inside;
            bits160 ends = commas;  // the byte after each number: its comma, and the ']'
            ends.w[t / 64] |= uint64_t{1} << (t % 64);
            const bits160 digit = sc.digit;
            const bool bad = __builtin_popcountll(commas.w[0]) + __builtin_popcountll(commas.w[1]) +
                                     __builtin_popcountll(commas.w[2]) != 31 ||
                             (ends & ~digit.up(1)).any() ||                                     // an empty number
                             (digit & digit.up(1) & digit.up(2) & digit.up(3) & inside).any() ||  // 4 digits
                             (sc.zero & ~digit.up(1) & digit.down1() & inside).any() ||          // a leading zero
                             (sc.overflow & ends.down1()).any();                                // above 255
            if (bad) leave();
            // Each number's value sits at its last digit, the byte before its end.
            size_t i = 0;
            for (size_t w = 0; w < 3; ++w)
                for (uint64_t e = ends.w[w]; e != 0; e &= e - 1)
                    out[i++ & 31] = sc.value[64 * w + static_cast<size_t>(__builtin_ctzll(e)) - 1];
            p = q + t + 1;
            return;
        }
#endif
        ch('[');
        for (size_t i = 0; i < 32; ++i) {
            if (i != 0) ch(',');
            const uint64_t v = u64();
            if (v > 255) leave();
            out[i] = static_cast<uint8_t>(v);
        }
        ch(']');
    }
    void dom(domain& out) {
        bytes32(out);
        if (!is_canonical(out)) leave();
    }
    void domains(std::vector<domain>& out) {
        ch('[');
        scratch.clear();
        if (!at(']')) {
            for (;;) {
                dom(scratch.emplace_back());
                if (!at(',')) break;
                ++p;
            }
        }
        ch(']');
        out.assign(scratch.begin(), scratch.end());
    }
    // "[x,...]" with each x read by f into `scratch`, then moved into `out`, which is allocated
    // once at its size instead of growing element by element.
    template <class T, class F>
    void list(std::vector<T>& out, std::vector<T>& scratch, F&& f) {
        ch('[');
        size_t used = 0;
        if (!at(']')) {
            for (;;) {
                if (used == scratch.size()) scratch.emplace_back();
                f(scratch[used++]);
                if (!at(',')) break;
                ++p;
            }
        }
        ch(']');
        out.clear();
        out.reserve(used);
        for (size_t i = 0; i < used; ++i) out.push_back(std::move(scratch[i]));
    }
    // One per element type: a list never holds a list of its own type.
    std::vector<path_element> path_scratch;
    std::vector<column_proof> column_scratch;
    std::vector<labeling_proof> labeling_scratch;

    // InclusionPath {"path":[{"hashes":[...],"index":n},...]}.
    void inclusion_path(std::vector<path_element>& out) {
        lit("{\"path\":");
        list(out, path_scratch, [this](path_element& pe) {
            lit("{\"hashes\":");
            domains(pe.hashes);
            lit(",\"index\":");
            pe.index = u64();
            ch('}');
        });
        ch('}');
    }
    // MerkleProof {"data":{"Single":{...}}} | Sub | Top, fields in serde's order.
    void merkle(merkle_proof& out) {
        lit("{\"data\":{\"");
        out.sub_path.clear();
        out.top_path.clear();
        if (at("Single\"")) {
            lit("Single\":{\"root\":");
            dom(out.root);
            lit(",\"leaf\":");
            dom(out.leaf);
            lit(",\"path\":");
            inclusion_path(out.base_path);
        } else {
            const bool top = at("Top\"");
            lit(top ? "Top\":{\"base_proof\":" : "Sub\":{\"base_proof\":");
            inclusion_path(out.base_path);
            lit(",\"sub_proof\":");
            inclusion_path(out.sub_path);
            if (top) {
                lit(",\"top_proof\":");
                inclusion_path(out.top_path);
            }
            lit(",\"root\":");
            dom(out.root);
            lit(",\"leaf\":");
            dom(out.leaf);
        }
        lit("}}}");
    }
    // ColumnProof {"column":{"index":n,"rows":[...],"_h":null},"inclusion_proof":...}.
    void column_proof_value(column_proof& out) {
        lit("{\"column\":{\"index\":");
        out.col.index = u32();
        lit(",\"rows\":");
        domains(out.col.rows);
        lit(",\"_h\":null},\"inclusion_proof\":");
        merkle(out.inclusion_proof);
        ch('}');
    }
    // LabelingProof / EncodingProof {"parents":[...],"layer_index":n,"node":n}.
    template <class T>
    void parents_proof(T& out) {
        lit("{\"parents\":");
        domains(out.parents);
        lit(",\"layer_index\":");
        out.layer_index = u32();
        lit(",\"node\":");
        out.node = u64();
        ch('}');
    }
    // The stacked vanilla Proof of one challenge.
    void challenge(challenge_proof& out) {
        lit("{\"comm_d_proofs\":");
        merkle(out.comm_d_proofs);
        lit(",\"comm_r_last_proof\":");
        merkle(out.comm_r_last_proof);
        lit(",\"replica_column_proofs\":{\"c_x\":");
        column_proof_value(out.replica_column_proofs.c_x);
        lit(",\"drg_parents\":");
        list(out.replica_column_proofs.drg_parents, column_scratch,
             [this](column_proof& cp) { column_proof_value(cp); });
        lit(",\"exp_parents\":");
        list(out.replica_column_proofs.exp_parents, column_scratch,
             [this](column_proof& cp) { column_proof_value(cp); });
        lit("},\"labeling_proofs\":");
        list(out.labeling_proofs, labeling_scratch, [this](labeling_proof& lp) { parents_proof(lp); });
        lit(",\"encoding_proof\":");
        parents_proof(out.encoding_proof);
        ch('}');
    }
};

constexpr std::string_view challenge_start = "{\"comm_d_proofs\":{\"data\":{\"";

// The challenges from one start to the next piece's start (or to the "]]" that closes the
// partitions), with the indices where a new partition begins ("],[" before them).
struct piece {
    const char* begin = nullptr;
    const char* stop = nullptr;  // the next piece's begin; nullptr for the last piece
    std::vector<challenge_proof> proofs;
    std::vector<size_t> breaks;
    const char* end = nullptr;  // where it ended: stop, or just after "]]"
};

void read_piece(piece& pc, const char* text_end) {
    reader r(pc.begin, text_end);
    for (;;) {
        r.challenge(pc.proofs.emplace_back());
        if (r.at(',')) {
            ++r.p;
        } else if (r.at("],[")) {
            r.p += 3;
            pc.breaks.push_back(pc.proofs.size());
        } else if (r.at("]]")) {
            if (pc.stop != nullptr) leave();  // the partitions ended before the next piece
            pc.end = r.p + 2;
            return;
        } else {
            leave();
        }
        if (pc.stop != nullptr && r.p >= pc.stop) {
            if (r.p != pc.stop) leave();  // the next piece did not start at a challenge
            pc.end = r.p;
            return;
        }
    }
}

// Below this many bytes of challenges the pieces are not worth their tasks.
constexpr size_t parallel_bytes = size_t{1} << 20;

// "[[challenge,...],...]": pieces that start at a challenge ("{"comm_d_proofs":..."), found by
// searching from evenly spaced points, read in parallel; each but the last must end exactly
// where the next begins, so together they are the one sequence a serial read would see.
void partitions(reader& r, std::vector<std::vector<challenge_proof>>& out) {
    r.ch('[');
    out.clear();
    if (r.at(']')) {
        ++r.p;
        return;
    }
    r.ch('[');
    std::vector<piece> pieces(1);
    pieces[0].begin = r.p;
    const unsigned threads = parallel::arena_concurrency();
    const size_t size = static_cast<size_t>(r.end - r.p);
    if (threads > 1 && size >= parallel_bytes) {
        const size_t n = 4 * size_t{threads};
        for (size_t k = 1; k < n; ++k) {
            const char* from = r.p + size / n * k;
            if (from <= pieces.back().begin) continue;
            const void* hit = memmem(from, static_cast<size_t>(r.end - from), challenge_start.data(),
                                     challenge_start.size());
            if (hit == nullptr) break;
            pieces.back().stop = static_cast<const char*>(hit);
            pieces.emplace_back().begin = static_cast<const char*>(hit);
        }
    }
    std::atomic<bool> missed{false};
    parallel::for_chunks(pieces.size(), 1, [&](size_t lo, size_t hi) {
        for (size_t k = lo; k < hi && !missed; ++k) {
            try {
                read_piece(pieces[k], r.end);
            } catch (const miss&) {
                missed = true;
            }
        }
    });
    if (missed) leave();
    out.emplace_back();
    for (piece& pc : pieces) {
        size_t b = 0;
        for (size_t j = 0; j < pc.proofs.size(); ++j) {
            for (; b < pc.breaks.size() && pc.breaks[b] == j; ++b) out.emplace_back();
            out.back().push_back(std::move(pc.proofs[j]));
        }
        for (; b < pc.breaks.size(); ++b) out.emplace_back();
    }
    r.p = pieces.back().end;
}

void output(reader& r, c1_output& out) {
    r.lit("{\"registered_proof\":\"");
    const char* name_begin = r.p;
    while (r.p < r.end && *r.p != '"') {
        if (static_cast<unsigned char>(*r.p) < 0x20 || *r.p == '\\' || static_cast<unsigned char>(*r.p) >= 0x7f)
            leave();  // escapes, control characters, UTF-8: the decoders judge
        ++r.p;
    }
    const std::string_view name(name_begin, static_cast<size_t>(r.p - name_begin));
    const registered_seal_proof* kind = nullptr;
    try {
        kind = &supported_seal_proof(name);
    } catch (const error&) {
        leave();
    }
    out.registered_proof = std::string(name);
    r.lit("\",\"vanilla_proofs\":{\"");
    r.lit(kind->vanilla_variant);
    r.lit("\":");
    partitions(r, out.vanilla_proofs);
    r.lit("},\"comm_r\":");
    r.dom(out.comm_r);
    r.lit(",\"comm_d\":");
    r.dom(out.comm_d);
    r.lit(",\"replica_id\":");
    r.dom(out.replica_id);
    r.lit(",\"seed\":");
    r.bytes32(out.seed);
    r.lit(",\"ticket\":");
    r.bytes32(out.ticket);
    r.ch('}');
    if (r.p != r.end) leave();
}

// The decoded Phase1Out in huge pages from 2 MiB up (core/huge_pages.hpp). A fresh 38.6 MB
// buffer (32 GiB) took 34 ms to touch in 4 KiB page faults, 6 ms in huge pages (2-core AMD
// EPYC, THP "madvise").
std::unique_ptr<char, free_deleter> allocate_text(size_t n) {
    return std::unique_ptr<char, free_deleter>(static_cast<char*>(alloc_huge_aligned(n).release()));
}

}  // namespace

bool read_c1_output_layout(std::string_view text, c1_output& out) {
    reader r(text.data(), text.data() + text.size());
    try {
        output(r, out);
        return true;
    } catch (const miss&) {
        return false;
    }
}

bool read_c1_file_layout(std::string_view text, c1_file& out) {
    reader r(text.data(), text.data() + text.size());
    try {
        r.lit("{\"SectorNum\":");
        out.sector_num = r.u64();
        r.lit(",\"Phase1Out\":\"");
        // The string ends where the text's tail "\",\"SectorSize\":<digits>}" begins, found from
        // the end (no scan of the 51 MB); a '"' or '\\' inside it is not base64, which the
        // decoder refuses: only the alphabet and the padding pass it.
        const char* b64_begin = r.p;
        const char* tail = r.end;
        if (tail == b64_begin || *--tail != '}') return false;
        while (tail > b64_begin && reader::digit(tail[-1])) --tail;
        constexpr std::string_view size_key = "\",\"SectorSize\":";
        if (static_cast<size_t>(tail - b64_begin) < size_key.size()) return false;
        tail -= size_key.size();
        const std::string_view b64(b64_begin, static_cast<size_t>(tail - b64_begin));
        r.p = tail;
        r.lit(size_key);
        out.sector_size = r.u64();
        r.ch('}');
        if (r.p != r.end) return false;
        size_t n = 0;
        std::unique_ptr<char, free_deleter> inner;
        try {
            n = base64_decoded_size(b64);
            inner = allocate_text(n);
            base64_decode_to_parallel(b64, std::span<uint8_t>(reinterpret_cast<uint8_t*>(inner.get()), n));
        } catch (const error&) {
            return false;
        } catch (const std::bad_alloc&) {
            return false;
        }
        return read_c1_output_layout(std::string_view(inner.get(), n), out.phase1_out);
    } catch (const miss&) {
        return false;
    }
}

}  // namespace c2lab::porep
