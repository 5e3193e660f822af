// The C1 file format; see c1_json.hpp for the layout and its sources.
//
// Both decoders parse the whole text into a DOM first (nlohmann::json, simdjson::dom), so a
// syntax error is found before any structural one, and then run one walker, a template over
// a small adapter per DOM: the two decoders cannot drift apart in structure, checks or
// messages. JSON paths are kept as a chain of stack nodes and only rendered on an error.
// The simdjson decoder tries the layout reader (c1_layout.hpp) before its DOM: it accepts only
// text the walker decodes to the same value, and leaves every error to the walker.
#include "porep/c1_json.hpp"

#include <simdjson.h>

#include <array>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/base64.hpp"
#include "core/cpu.hpp"
#include "core/error.hpp"
#include "core/file.hpp"
#include "ff/fields.hpp"
#include "porep/c1_layout.hpp"
#include "porep/params.hpp"

namespace c2lab::porep {

namespace {

// ---- registered proofs ------------------------------------------------------------------------

// The registered proofs and their VanillaSealProof variants are porep/params.hpp's one table
// (registered_seal_proofs): the decoder accepts exactly the proofs the circuit proves.
constexpr std::string_view proof_data_variants[] = {"Single", "Sub", "Top"};

std::string join(std::span<const std::string_view> names) {
    std::string s;
    for (auto n : names) {
        if (!s.empty()) s += ", ";
        s += n;
    }
    return s;
}

// ---- JSON paths -------------------------------------------------------------------------------

// One step of a JSON path: an object key or an array index. The root node's key is the
// prefix of every path below it ("Phase1Out" inside a C1 file) and `whole` names the document
// when the path is empty.
struct path_node {
    const path_node* parent = nullptr;
    std::string_view key{};
    size_t index = 0;
    bool is_index = false;
    std::string_view whole{};
};

path_node key_node(const path_node& parent, std::string_view key) { return {&parent, key, 0, false, {}}; }
path_node index_node(const path_node& parent, size_t index) { return {&parent, {}, index, true, {}}; }

std::string render(const path_node& p) {
    std::vector<const path_node*> chain;
    for (const path_node* n = &p; n != nullptr; n = n->parent) chain.push_back(n);
    std::string s;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const path_node& n = **it;
        if (n.is_index) {
            s += '[';
            s += std::to_string(n.index);
            s += ']';
        } else if (!n.key.empty()) {
            if (!s.empty()) s += '.';
            s += n.key;
        }
    }
    if (s.empty()) {
        const path_node* root = chain.back();
        s = root->whole.empty() ? std::string("(top level)") : std::string(root->whole);
    }
    return s;
}

[[noreturn]] void fail(errc kind, const path_node& p, const std::string& message) {
    throw error(kind, render(p) + ": " + message);
}

// ---- DOM adapters -----------------------------------------------------------------------------

enum class jkind { null, boolean, unsigned_integer, negative_integer, floating, string, array, object };

// As serde_json shows a float: 2048.0, 1.5, 1e+300.
std::string format_double(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    std::string s = buf;
    if (s.find_first_of(".eni") == std::string::npos) s += ".0";
    return s;
}

struct nlohmann_dom {
    using value = const nlohmann::json*;

    static jkind kind(value v) noexcept {
        switch (v->type()) {
            case nlohmann::json::value_t::null: return jkind::null;
            case nlohmann::json::value_t::boolean: return jkind::boolean;
            case nlohmann::json::value_t::number_unsigned: return jkind::unsigned_integer;
            case nlohmann::json::value_t::number_integer:
                return v->get_ref<const nlohmann::json::number_integer_t&>() < 0 ? jkind::negative_integer
                                                                                 : jkind::unsigned_integer;
            case nlohmann::json::value_t::number_float: return jkind::floating;
            case nlohmann::json::value_t::string: return jkind::string;
            case nlohmann::json::value_t::array: return jkind::array;
            case nlohmann::json::value_t::object: return jkind::object;
            default: return jkind::null;  // binary and discarded values never come from parse()
        }
    }
    static uint64_t as_u64(value v) noexcept {
        if (v->is_number_integer() && !v->is_number_unsigned())
            return static_cast<uint64_t>(v->get_ref<const nlohmann::json::number_integer_t&>());
        return v->get_ref<const nlohmann::json::number_unsigned_t&>();
    }
    static int64_t as_i64(value v) noexcept { return v->get_ref<const nlohmann::json::number_integer_t&>(); }
    static double as_double(value v) noexcept { return v->get_ref<const nlohmann::json::number_float_t&>(); }
    static std::string_view as_string(value v) noexcept { return v->get_ref<const std::string&>(); }
    static size_t array_size(value v) noexcept { return v->size(); }
    template <class F>
    static void for_each_element(value v, F&& f) {
        const auto& a = v->get_ref<const nlohmann::json::array_t&>();
        for (size_t i = 0; i < a.size(); ++i) f(i, &a[i]);
    }
    template <class F>
    static void for_each_field(value v, F&& f) {
        for (const auto& [k, x] : v->get_ref<const nlohmann::json::object_t&>()) f(std::string_view(k), &x);
    }
    // An array of exactly 32 integers 0..255 into out; false (and the walker's slow path,
    // which names the problem) otherwise.
    static bool try_bytes32(value v, std::array<uint8_t, 32>& out) noexcept {
        if (!v->is_array() || v->size() != 32) return false;
        const auto& a = v->get_ref<const nlohmann::json::array_t&>();
        for (size_t i = 0; i < 32; ++i) {
            if (!a[i].is_number_unsigned()) return false;
            const uint64_t x = a[i].get_ref<const nlohmann::json::number_unsigned_t&>();
            if (x > 255) return false;
            out[i] = static_cast<uint8_t>(x);
        }
        return true;
    }
    static bool find(value v, std::string_view key, value& out) {
        const auto& o = v->get_ref<const nlohmann::json::object_t&>();
        auto it = o.find(key);
        if (it == o.end()) return false;
        out = &it->second;
        return true;
    }
};

struct simdjson_dom {
    using value = simdjson::dom::element;

    static jkind kind(value v) noexcept {
        switch (v.type()) {
            case simdjson::dom::element_type::NULL_VALUE: return jkind::null;
            case simdjson::dom::element_type::BOOL: return jkind::boolean;
            case simdjson::dom::element_type::UINT64: return jkind::unsigned_integer;
            case simdjson::dom::element_type::INT64:
                return v.get_int64().value_unsafe() < 0 ? jkind::negative_integer : jkind::unsigned_integer;
            case simdjson::dom::element_type::DOUBLE: return jkind::floating;
            case simdjson::dom::element_type::STRING: return jkind::string;
            case simdjson::dom::element_type::ARRAY: return jkind::array;
            case simdjson::dom::element_type::OBJECT: return jkind::object;
        }
        return jkind::null;
    }
    static uint64_t as_u64(value v) noexcept {
        if (v.type() == simdjson::dom::element_type::INT64)
            return static_cast<uint64_t>(v.get_int64().value_unsafe());
        return v.get_uint64().value_unsafe();
    }
    static int64_t as_i64(value v) noexcept { return v.get_int64().value_unsafe(); }
    static double as_double(value v) noexcept { return v.get_double().value_unsafe(); }
    static std::string_view as_string(value v) noexcept { return v.get_string().value_unsafe(); }
    static size_t array_size(value v) noexcept {
        const simdjson::dom::array a = v.get_array().value_unsafe();
        size_t n = a.size();
        if (n < 0xffffff) return n;  // the tape saturates the count at 2^24 - 1
        n = 0;
        for ([[maybe_unused]] simdjson::dom::element e : a) ++n;
        return n;
    }
    template <class F>
    static void for_each_element(value v, F&& f) {
        const simdjson::dom::array a = v.get_array().value_unsafe();  // a copy: no dangling temporary
        size_t i = 0;
        for (simdjson::dom::element e : a) f(i++, e);
    }
    template <class F>
    static void for_each_field(value v, F&& f) {
        const simdjson::dom::object o = v.get_object().value_unsafe();
        for (simdjson::dom::key_value_pair kv : o) f(kv.key, kv.value);
    }
    static bool try_bytes32(value v, std::array<uint8_t, 32>& out) noexcept {
        simdjson::dom::array a;
        if (v.get_array().get(a) != simdjson::SUCCESS || a.size() != 32) return false;
        size_t i = 0;
        for (simdjson::dom::element e : a) {
            uint64_t x;
            if (e.get_uint64().get(x) != simdjson::SUCCESS || x > 255) return false;
            out[i++] = static_cast<uint8_t>(x);
        }
        return true;
    }
    // The last field named `key`, as nlohmann keeps it.
    static bool find(value v, std::string_view key, value& out) {
        const simdjson::dom::object o = v.get_object().value_unsafe();
        bool found = false;
        for (simdjson::dom::key_value_pair kv : o)
            if (kv.key == key) {
                out = kv.value;
                found = true;
            }
        return found;
    }
};

// ---- the walker -------------------------------------------------------------------------------

bool is_canonical_fr(const domain& d) noexcept {
    if (d[31] < 0x73) return true;  // r = 0x73eda753...: anything with a smaller top byte is below it
    ff::fr::repr x{};
    for (size_t i = 0; i < 32; ++i) x[i / 8] |= uint64_t{d[i]} << (8 * (i % 8));
    return ff::fr::is_canonical(x);
}

template <class A>
struct walker {
    using V = typename A::value;

    static const char* kind_name(jkind k) noexcept {
        switch (k) {
            case jkind::null: return "null";
            case jkind::boolean: return "a boolean";
            case jkind::unsigned_integer: return "an integer";
            case jkind::negative_integer: return "a negative integer";
            case jkind::floating: return "a floating-point number";
            case jkind::string: return "a string";
            case jkind::array: return "an array";
            case jkind::object: return "an object";
        }
        return "?";
    }
    static std::string describe(V v) {
        switch (A::kind(v)) {
            case jkind::unsigned_integer: return "the integer " + std::to_string(A::as_u64(v));
            case jkind::negative_integer: return "the negative integer " + std::to_string(A::as_i64(v));
            case jkind::floating: return "the floating-point number " + format_double(A::as_double(v));
            default: return kind_name(A::kind(v));
        }
    }
    static void expect(V v, jkind want, const path_node& p, std::string_view what) {
        if (A::kind(v) != want) fail(errc::bad_input, p, "expected " + std::string(what) + ", got " + describe(v));
    }
    static V field(V obj, const path_node& field_path) {
        V out{};
        if (!A::find(obj, field_path.key, out)) fail(errc::bad_input, field_path, "missing field");
        return out;
    }

    static uint64_t u64(V v, const path_node& p, uint64_t max, std::string_view type) {
        const jkind k = A::kind(v);
        if (k == jkind::unsigned_integer) {
            const uint64_t x = A::as_u64(v);
            if (x > max)
                fail(errc::bad_input, p, "value " + std::to_string(x) + " is out of range for " + std::string(type));
            return x;
        }
        if (k == jkind::negative_integer || k == jkind::floating)
            fail(errc::bad_input, p, "expected a non-negative integer (" + std::string(type) + "), got " + describe(v));
        fail(errc::bad_input, p, "expected an integer (" + std::string(type) + "), got " + describe(v));
    }
    static uint64_t u64_field(V obj, const path_node& p, std::string_view key) {
        const path_node f = key_node(p, key);
        return u64(field(obj, f), f, std::numeric_limits<uint64_t>::max(), "u64");
    }
    static uint32_t u32_field(V obj, const path_node& p, std::string_view key) {
        const path_node f = key_node(p, key);
        return static_cast<uint32_t>(u64(field(obj, f), f, std::numeric_limits<uint32_t>::max(), "u32"));
    }

    // [u8; 32] as serde writes it: an array of exactly 32 integers 0..255.
    static void bytes32(V v, const path_node& p, std::array<uint8_t, 32>& out) {
        if (A::try_bytes32(v, out)) return;
        if (A::kind(v) != jkind::array) fail(errc::bad_input, p, "expected an array of 32 bytes, got " + describe(v));
        const size_t n = A::array_size(v);
        if (n != 32)
            fail(errc::bad_length, p, "expected an array of 32 bytes, got " + std::to_string(n) + " elements");
        A::for_each_element(v, [&](size_t i, V e) {
            if (A::kind(e) == jkind::unsigned_integer) {
                const uint64_t x = A::as_u64(e);
                if (x <= 255) {
                    out[i] = static_cast<uint8_t>(x);
                    return;
                }
            }
            const path_node ep = index_node(p, i);
            if (A::kind(e) == jkind::unsigned_integer)
                fail(errc::bad_input, ep, "byte value " + std::to_string(A::as_u64(e)) + " is out of range 0..255");
            if (A::kind(e) == jkind::negative_integer)
                fail(errc::bad_input, ep, "byte value " + std::to_string(A::as_i64(e)) + " is out of range 0..255");
            fail(errc::bad_input, ep, "expected a byte (an integer 0..255), got " + describe(e));
        });
    }
    static void bytes32_field(V obj, const path_node& p, std::string_view key, std::array<uint8_t, 32>& out) {
        const path_node f = key_node(p, key);
        bytes32(field(obj, f), f, out);
    }
    // A Sha256Domain / PoseidonDomain (a newtype over [u8; 32]): 32 bytes, canonical Fr.
    static void dom(V v, const path_node& p, domain& out) {
        bytes32(v, p, out);
        if (!is_canonical_fr(out))
            fail(errc::non_canonical, p,
                 "not a canonical field element: the 32 bytes (little-endian) are >= r, the BLS12-381 scalar "
                 "field modulus");
    }
    static void dom_field(V obj, const path_node& p, std::string_view key, domain& out) {
        const path_node f = key_node(p, key);
        dom(field(obj, f), f, out);
    }
    static void doms_field(V obj, const path_node& p, std::string_view key, std::vector<domain>& out) {
        const path_node f = key_node(p, key);
        const V v = field(obj, f);
        expect(v, jkind::array, f, "an array of 32-byte hashes");
        out.resize(A::array_size(v));
        A::for_each_element(v, [&](size_t i, V e) { dom(e, index_node(f, i), out[i]); });
    }
    static V object_field(V obj, const path_node& f, std::string_view what) {
        const V v = field(obj, f);
        expect(v, jkind::object, f, what);
        return v;
    }
    template <class T, class F>
    static void array_field(V obj, const path_node& p, std::string_view key, std::string_view what,
                            std::vector<T>& out, F&& each) {
        const path_node f = key_node(p, key);
        const V v = field(obj, f);
        expect(v, jkind::array, f, what);
        out.resize(A::array_size(v));
        A::for_each_element(v, [&](size_t i, V e) { each(e, index_node(f, i), out[i]); });
    }

    // An externally tagged serde enum: an object with one key, the variant name.
    static std::pair<std::string_view, V> variant(V v, const path_node& p, std::string_view enum_name,
                                                  std::span<const std::string_view> allowed) {
        const std::string what = "an object with one key, the " + std::string(enum_name) + " variant (" +
                                 join(allowed) + ")";
        expect(v, jkind::object, p, what);
        std::string_view name{};
        V inner{};
        size_t keys = 0;
        A::for_each_field(v, [&](std::string_view k, V x) {
            if (keys == 0 || k != name) ++keys;  // a repeated key counts once, as nlohmann keeps one
            name = k;
            inner = x;
        });
        if (keys != 1) fail(errc::bad_input, p, "expected " + what + ", got " + std::to_string(keys) + " keys");
        bool known = false;
        for (auto a : allowed) known = known || a == name;
        if (!known)
            fail(errc::bad_input, p,
                 "unknown " + std::string(enum_name) + " variant \"" + std::string(name) + "\" (expected one of: " +
                     join(allowed) + ")");
        return {name, inner};
    }

    // InclusionPath {"path": [PathElement {"hashes": [...], "index": usize}, ...]}.
    static void inclusion_path(V obj, const path_node& p, std::string_view key, std::vector<path_element>& out) {
        const path_node f = key_node(p, key);
        const V v = object_field(obj, f, "an object (InclusionPath)");
        array_field(v, f, "path", "an array of path elements", out, [](V e, const path_node& ep, path_element& pe) {
            expect(e, jkind::object, ep, "an object (PathElement)");
            doms_field(e, ep, "hashes", pe.hashes);
            pe.index = u64_field(e, ep, "index");
        });
    }

    // MerkleProof {"data": ProofData}, ProofData = Single | Sub | Top.
    static void merkle(V v, const path_node& p, merkle_proof& out) {
        expect(v, jkind::object, p, "an object (MerkleProof)");
        const path_node df = key_node(p, "data");
        const auto [name, body] = variant(field(v, df), df, "ProofData", proof_data_variants);
        const path_node bp = key_node(df, name);
        expect(body, jkind::object, bp, "an object (" + std::string(name) + "Proof)");
        out.sub_path.clear();
        out.top_path.clear();
        if (name == "Single") {
            dom_field(body, bp, "root", out.root);
            dom_field(body, bp, "leaf", out.leaf);
            inclusion_path(body, bp, "path", out.base_path);
            return;
        }
        inclusion_path(body, bp, "base_proof", out.base_path);
        inclusion_path(body, bp, "sub_proof", out.sub_path);
        if (name == "Top") inclusion_path(body, bp, "top_proof", out.top_path);
        dom_field(body, bp, "root", out.root);
        dom_field(body, bp, "leaf", out.leaf);
    }
    static void merkle_field(V obj, const path_node& p, std::string_view key, merkle_proof& out) {
        const path_node f = key_node(p, key);
        merkle(field(obj, f), f, out);
    }

    // ColumnProof {"column": Column {"index", "rows", "_h": null}, "inclusion_proof"}.
    static void column_proof_value(V v, const path_node& p, column_proof& out) {
        expect(v, jkind::object, p, "an object (ColumnProof)");
        const path_node cf = key_node(p, "column");
        const V col = object_field(v, cf, "an object (Column)");
        out.col.index = u32_field(col, cf, "index");
        doms_field(col, cf, "rows", out.col.rows);
        V h{};
        if (A::find(col, "_h", h)) expect(h, jkind::null, key_node(cf, "_h"), "null (serde's PhantomData)");
        merkle_field(v, p, "inclusion_proof", out.inclusion_proof);
    }

    // LabelingProof / EncodingProof {"parents", "layer_index", "node"}.
    template <class T>
    static void parents_proof(V v, const path_node& p, std::string_view what, T& out) {
        expect(v, jkind::object, p, what);
        doms_field(v, p, "parents", out.parents);
        out.layer_index = u32_field(v, p, "layer_index");
        out.node = u64_field(v, p, "node");
    }

    // The stacked vanilla Proof of one challenge.
    static void challenge(V v, const path_node& p, challenge_proof& out) {
        expect(v, jkind::object, p, "an object (stacked vanilla Proof)");
        merkle_field(v, p, "comm_d_proofs", out.comm_d_proofs);
        merkle_field(v, p, "comm_r_last_proof", out.comm_r_last_proof);
        const path_node rf = key_node(p, "replica_column_proofs");
        const V rcp = object_field(v, rf, "an object (ReplicaColumnProof)");
        {
            const path_node cf = key_node(rf, "c_x");
            column_proof_value(field(rcp, cf), cf, out.replica_column_proofs.c_x);
        }
        array_field(rcp, rf, "drg_parents", "an array of column proofs", out.replica_column_proofs.drg_parents,
                    column_proof_value);
        array_field(rcp, rf, "exp_parents", "an array of column proofs", out.replica_column_proofs.exp_parents,
                    column_proof_value);
        array_field(v, p, "labeling_proofs", "an array of labeling proofs", out.labeling_proofs,
                    [](V e, const path_node& ep, labeling_proof& lp) {
                        parents_proof(e, ep, "an object (LabelingProof)", lp);
                    });
        const path_node ef = key_node(p, "encoding_proof");
        parents_proof(field(v, ef), ef, "an object (EncodingProof)", out.encoding_proof);
    }

    // SealCommitPhase1Output (filecoin-proofs-api src/seal.rs).
    static void output(V v, const path_node& p, c1_output& out) {
        expect(v, jkind::object, p, "an object (SealCommitPhase1Output)");
        const path_node rf = key_node(p, "registered_proof");
        const V rp = field(v, rf);
        expect(rp, jkind::string, rf, "a string (RegisteredSealProof)");
        const std::string_view name = A::as_string(rp);
        const registered_seal_proof* kind = nullptr;
        try {
            kind = &supported_seal_proof(name);
        } catch (const error& e) {
            fail(e.kind(), rf, e.what());
        }
        out.registered_proof = std::string(name);

        const path_node vf = key_node(p, "vanilla_proofs");
        const auto [variant_name, partitions] =
            variant(field(v, vf), vf, "VanillaSealProof", vanilla_seal_proof_variants());
        const path_node pf = key_node(vf, variant_name);
        if (variant_name != kind->vanilla_variant)
            fail(errc::bad_input, pf,
                 "variant does not match registered_proof \"" + std::string(name) + "\", which expects \"" +
                     std::string(kind->vanilla_variant) + "\"");
        expect(partitions, jkind::array, pf, "an array of partitions");
        out.vanilla_proofs.resize(A::array_size(partitions));
        A::for_each_element(partitions, [&](size_t i, V part) {
            const path_node pp = index_node(pf, i);
            expect(part, jkind::array, pp, "an array of challenge proofs");
            auto& proofs = out.vanilla_proofs[i];
            proofs.resize(A::array_size(part));
            A::for_each_element(part, [&](size_t j, V c) { challenge(c, index_node(pp, j), proofs[j]); });
        });

        dom_field(v, p, "comm_r", out.comm_r);
        dom_field(v, p, "comm_d", out.comm_d);
        dom_field(v, p, "replica_id", out.replica_id);
        bytes32_field(v, p, "seed", out.seed);
        bytes32_field(v, p, "ticket", out.ticket);
    }

    // The outer object; returns Phase1Out's base64 text (valid while the DOM lives).
    static std::string_view outer(V v, const path_node& p, c1_file& out) {
        expect(v, jkind::object, p, "an object {\"SectorNum\", \"Phase1Out\", \"SectorSize\"}");
        out.sector_num = u64_field(v, p, "SectorNum");
        const path_node of = key_node(p, "Phase1Out");
        const V p1 = field(v, of);
        expect(p1, jkind::string, of, "a string (base64 of the commit phase 1 output JSON)");
        out.sector_size = u64_field(v, p, "SectorSize");
        return A::as_string(p1);
    }
};

// ---- parsing ----------------------------------------------------------------------------------

nlohmann::json parse_nlohmann(std::string_view text, const path_node& where) {
    try {
        return nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for 1E400
        fail(errc::bad_input, where, std::string("not valid JSON (nlohmann: ") + e.what() + ")");
    }
}

simdjson::dom::element parse_simdjson(simdjson::dom::parser& parser, const char* data, size_t size,
                                      bool padded, const path_node& where) {
    simdjson_kernel();  // chosen once, before the first parse
    simdjson::dom::element root;
    const auto err = parser.parse(data, size, !padded).get(root);
    if (err)
        fail(errc::bad_input, where, std::string("not valid JSON (simdjson: ") + simdjson::error_message(err) + ")");
    return root;
}

// Phase1Out's base64 into a buffer with simdjson's padding after it.
simdjson::padded_string decode_phase1_out(std::string_view b64, const path_node& where) {
    try {
        const size_t n = base64_decoded_size(b64);
        simdjson::padded_string buf(n);
        if (n != 0 && buf.data() == nullptr) fail(errc::resource, where, "cannot allocate " + std::to_string(n) + " bytes");
        base64_decode_to(b64, std::span<uint8_t>(reinterpret_cast<uint8_t*>(buf.data()), n));
        return buf;
    } catch (const error& e) {
        if (e.kind() != errc::bad_input) throw;
        fail(errc::bad_input, where, e.what());
    }
}

void check_sector_size(const c1_file& f, const path_node& outer_root) {
    const registered_seal_proof* kind = find_registered_seal_proof(f.phase1_out.registered_proof);
    if (kind != nullptr && kind->sector_size == f.sector_size) return;
    fail(errc::bad_input, key_node(outer_root, "SectorSize"),
         std::to_string(f.sector_size) + " does not match Phase1Out.registered_proof \"" +
             f.phase1_out.registered_proof + "\" (a sector of " +
             std::to_string(kind != nullptr ? kind->sector_size : 0) + " bytes)");
}

// ---- encoding -------------------------------------------------------------------------------

using ojson = nlohmann::ordered_json;  // keeps serde's field order

ojson bytes_json(const std::array<uint8_t, 32>& b) {
    ojson a = ojson::array();
    auto& v = a.get_ref<ojson::array_t&>();
    v.reserve(32);
    for (uint8_t x : b) v.emplace_back(x);
    return a;
}

ojson domains_json(const std::vector<domain>& ds) {
    ojson a = ojson::array();
    auto& v = a.get_ref<ojson::array_t&>();
    v.reserve(ds.size());
    for (const auto& d : ds) v.push_back(bytes_json(d));
    return a;
}

ojson inclusion_path_json(const std::vector<path_element>& path) {
    ojson a = ojson::array();
    for (const auto& pe : path) {
        ojson e = ojson::object();
        e["hashes"] = domains_json(pe.hashes);
        e["index"] = pe.index;
        a.push_back(std::move(e));
    }
    ojson o = ojson::object();
    o["path"] = std::move(a);
    return o;
}

// ProofData Top when there is a top path, else Sub when there is a sub path, else Single.
ojson merkle_json(const merkle_proof& m) {
    ojson body = ojson::object();
    const char* variant = "Single";
    if (m.top_path.empty() && m.sub_path.empty()) {
        body["root"] = bytes_json(m.root);
        body["leaf"] = bytes_json(m.leaf);
        body["path"] = inclusion_path_json(m.base_path);
    } else {
        variant = m.top_path.empty() ? "Sub" : "Top";
        body["base_proof"] = inclusion_path_json(m.base_path);
        body["sub_proof"] = inclusion_path_json(m.sub_path);
        if (!m.top_path.empty()) body["top_proof"] = inclusion_path_json(m.top_path);
        body["root"] = bytes_json(m.root);
        body["leaf"] = bytes_json(m.leaf);
    }
    ojson data = ojson::object();
    data[variant] = std::move(body);
    ojson o = ojson::object();
    o["data"] = std::move(data);
    return o;
}

ojson column_proof_json(const column_proof& cp) {
    ojson col = ojson::object();
    col["index"] = cp.col.index;
    col["rows"] = domains_json(cp.col.rows);
    col["_h"] = nullptr;  // Column's PhantomData
    ojson o = ojson::object();
    o["column"] = std::move(col);
    o["inclusion_proof"] = merkle_json(cp.inclusion_proof);
    return o;
}

template <class T>
ojson parents_proof_json(const T& p) {
    ojson o = ojson::object();
    o["parents"] = domains_json(p.parents);
    o["layer_index"] = p.layer_index;
    o["node"] = p.node;
    return o;
}

ojson challenge_json(const challenge_proof& c) {
    ojson o = ojson::object();
    o["comm_d_proofs"] = merkle_json(c.comm_d_proofs);
    o["comm_r_last_proof"] = merkle_json(c.comm_r_last_proof);
    ojson rcp = ojson::object();
    rcp["c_x"] = column_proof_json(c.replica_column_proofs.c_x);
    ojson drg = ojson::array(), exp = ojson::array();
    for (const auto& cp : c.replica_column_proofs.drg_parents) drg.push_back(column_proof_json(cp));
    for (const auto& cp : c.replica_column_proofs.exp_parents) exp.push_back(column_proof_json(cp));
    rcp["drg_parents"] = std::move(drg);
    rcp["exp_parents"] = std::move(exp);
    o["replica_column_proofs"] = std::move(rcp);
    ojson labeling = ojson::array();
    for (const auto& lp : c.labeling_proofs) labeling.push_back(parents_proof_json(lp));
    o["labeling_proofs"] = std::move(labeling);
    o["encoding_proof"] = parents_proof_json(c.encoding_proof);
    return o;
}

}  // namespace

c1_json_decoder parse_c1_json_decoder(std::string_view name) {
    if (name == "nlohmann") return c1_json_decoder::nlohmann;
    if (name == "simdjson") return c1_json_decoder::simdjson;
    throw error(errc::bad_input, "c1_json: unknown decoder \"" + std::string(name) + "\" (expected nlohmann or simdjson)");
}

std::string_view to_string(c1_json_decoder decoder) noexcept {
    switch (decoder) {
        case c1_json_decoder::nlohmann: return "nlohmann";
        case c1_json_decoder::simdjson: return "simdjson";
    }
    return "?";
}

const std::string& simdjson_kernel() {
    static const std::string name = [] {
        if (!cpu::avx512_allowed) {
            const simdjson::implementation* avx2 = simdjson::get_available_implementations()["haswell"];
            if (avx2 != nullptr && avx2->supported_by_runtime_system()) simdjson::get_active_implementation() = avx2;
        }
        return simdjson::get_active_implementation()->name();
    }();
    return name;
}

std::string encode_c1_output_json(const c1_output& out) {
    // Any registered seal proof is written (the decoder refuses those c2lab does not prove).
    const registered_seal_proof* kind = find_registered_seal_proof(out.registered_proof);
    if (kind == nullptr)
        throw error(errc::bad_input, "encode_c1_output_json: unknown registered proof \"" + out.registered_proof + "\"");
    ojson partitions = ojson::array();
    for (const auto& part : out.vanilla_proofs) {
        ojson proofs = ojson::array();
        for (const auto& c : part) proofs.push_back(challenge_json(c));
        partitions.push_back(std::move(proofs));
    }
    ojson vanilla = ojson::object();
    vanilla[std::string(kind->vanilla_variant)] = std::move(partitions);
    ojson o = ojson::object();
    o["registered_proof"] = out.registered_proof;
    o["vanilla_proofs"] = std::move(vanilla);
    o["comm_r"] = bytes_json(out.comm_r);
    o["comm_d"] = bytes_json(out.comm_d);
    o["replica_id"] = bytes_json(out.replica_id);
    o["seed"] = bytes_json(out.seed);
    o["ticket"] = bytes_json(out.ticket);
    return o.dump();
}

std::string encode_c1_file(const c1_file& file) {
    ojson o = ojson::object();
    o["SectorNum"] = file.sector_num;
    o["Phase1Out"] = base64_encode(encode_c1_output_json(file.phase1_out));
    o["SectorSize"] = file.sector_size;
    return o.dump();
}

c1_output decode_c1_output_json(std::string_view text, c1_json_decoder decoder) {
    const path_node root{nullptr, {}, 0, false, "C1 output"};
    c1_output out;
    if (decoder == c1_json_decoder::simdjson && read_c1_output_layout(text, out)) return out;
    out = c1_output{};
    if (decoder == c1_json_decoder::nlohmann) {
        const nlohmann::json doc = parse_nlohmann(text, root);
        walker<nlohmann_dom>::output(&doc, root, out);
    } else {
        simdjson::dom::parser parser;
        walker<simdjson_dom>::output(parse_simdjson(parser, text.data(), text.size(), false, root), root, out);
    }
    return out;
}

namespace {

// `padded`: SIMDJSON_PADDING readable bytes follow text, so simdjson need not copy it.
c1_file decode_c1_file_impl(std::string_view text, bool padded, c1_json_decoder decoder) {
    const path_node root{nullptr, {}, 0, false, "C1 file"};
    const path_node inner_root{nullptr, "Phase1Out", 0, false, {}};
    c1_file f;
    if (decoder == c1_json_decoder::nlohmann) {
        simdjson::padded_string inner;
        {
            const nlohmann::json doc = parse_nlohmann(text, root);
            inner = decode_phase1_out(walker<nlohmann_dom>::outer(&doc, root, f), inner_root);
        }
        const nlohmann::json doc = parse_nlohmann(std::string_view(inner.data(), inner.size()), inner_root);
        walker<nlohmann_dom>::output(&doc, inner_root, f.phase1_out);
    } else {
        if (read_c1_file_layout(text, f)) {
            check_sector_size(f, root);
            return f;
        }
        f = c1_file{};
        simdjson::dom::parser parser;
        const auto outer_doc = parse_simdjson(parser, text.data(), text.size(), padded, root);
        const simdjson::padded_string inner =
            decode_phase1_out(walker<simdjson_dom>::outer(outer_doc, root, f), inner_root);
        // The outer DOM is no longer needed: the parser's buffers serve the inner document.
        const auto doc = parse_simdjson(parser, inner.data(), inner.size(), true, inner_root);
        walker<simdjson_dom>::output(doc, inner_root, f.phase1_out);
    }
    check_sector_size(f, root);
    return f;
}

}  // namespace

c1_file decode_c1_file(std::string_view text, c1_json_decoder decoder) {
    return decode_c1_file_impl(text, false, decoder);
}

c1_file read_c1_file(const std::string& path, c1_json_decoder decoder) {
    std::vector<uint8_t> bytes = read_file(path);
    const size_t size = bytes.size();
    bytes.resize(size + simdjson::SIMDJSON_PADDING);  // zeros, within the capacity read_file left
    try {
        return decode_c1_file_impl(std::string_view(reinterpret_cast<const char*>(bytes.data()), size), true, decoder);
    } catch (const error& e) {
        throw error(e.kind(), path + ": " + e.what());
    }
}

}  // namespace c2lab::porep
