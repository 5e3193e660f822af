// The pairing against the published value e(G1, G2) (zkcrypto/bls12_381 src/pairings.rs,
// Gt::generator(), given there in Montgomery form with R = 2^384, as here), and its laws:
// bilinearity, non-degeneracy, order r, multi-pairing = product of pairings.
#include "ec/pairing.hpp"

#include <gtest/gtest.h>

namespace c2lab::ec {
namespace {

using ff::fp;
using ff::fp2;
using ff::fp6;
using ff::fp12;
using ff::fr;

fp m(std::array<uint64_t, 6> limbs) { return fp::from_mont(limbs); }

fp12 published_e_g1_g2() {
    return fp12{
        fp6{fp2{m({0x1972e433a01f85c5, 0x97d32b76fd772538, 0xc8ce546fc96bcdf9, 0xcef63e7366d40614,
                   0xa611342781843780, 0x13f3448a3fc6d825}),
                m({0xd26331b02e9d6995, 0x9d68a482f7797e7d, 0x9c9b29248d39ea92, 0xf4801ca2e13107aa,
                   0xa16c0732bdbcb066, 0x083ca4afba360478})},
            fp2{m({0x59e261db0916b641, 0x2716b6f4b23e960d, 0xc8e55b10a0bd9c45, 0x0bdb0bd99c4deda8,
                   0x8cf89ebf57fdaac5, 0x12d6b7929e777a5e}),
                m({0x5fc85188b0e15f35, 0x34a06e3a8f096365, 0xdb3126a6e02ad62c, 0xfc6f5aa97d9a990b,
                   0xa12f55f5eb89c210, 0x1723703a926f8889})},
            fp2{m({0x93588f2971828778, 0x43f65b8611ab7585, 0x3183aaf5ec279fdf, 0xfa73d7e18ac99df6,
                   0x64e176a6a64c99b0, 0x179fa78c58388f1f}),
                m({0x672a0a11ca2aef12, 0x0d11b9b52aa3f16b, 0xa44412d0699d056e, 0xc01d0177221a5ba5,
                   0x66e0cede6c735529, 0x05f5a71e9fddc339})}},
        fp6{fp2{m({0xd30a88a1b062c679, 0x5ac56a5d35fc8304, 0xd0c834a6a81f290d, 0xcd5430c2da3707c7,
                   0xf0c27ff780500af0, 0x09245da6e2d72eae}),
                m({0x9f2e0676791b5156, 0xe2d1c8234918fe13, 0x4c9e459f3c561bf4, 0xa3e85e53b9d3e3c1,
                   0x820a121e21a70020, 0x15af618341c59acc})},
            fp2{m({0x7c95658c24993ab1, 0x73eb38721ca886b9, 0x5256d749477434bc, 0x8ba41902ea504a8b,
                   0x04a3d3f80c86ce6d, 0x18a64a87fb686eaa}),
                m({0xbb83e71bb920cf26, 0x2a5277ac92a73945, 0xfc0ee59f94f046a0, 0x7158cdf3786058f7,
                   0x7cc1061b82f945f6, 0x03f847aa9fdbe567})},
            fp2{m({0x8078dba56134e657, 0x1cd7ec9a43998a6e, 0xb1aa599a1a993766, 0xc9a0f62f0842ee44,
                   0x8e159be3b605dffa, 0x0c86ba0d4af13fc2}),
                m({0xe80ff2a06a52ffb1, 0x7694ca48721a906c, 0x7583183e03b08514, 0xf567afdd40cee4e2,
                   0x9a6d96d2e526a5fc, 0x197e9f49861f2242})}}};
}

TEST(pairing, generators_match_published_value) {
    EXPECT_EQ(pairing(g1_affine::generator(), g2_affine::generator()), published_e_g1_g2());
}

TEST(pairing, bilinear) {
    rng g(40);
    auto p = g1_affine::generator();
    auto q = g2_affine::generator();
    gt base = pairing(p, q);
    for (int i = 0; i < 3; ++i) {
        fr a = fr::random(g), b = fr::random(g);
        auto ap = (p.to_jacobian() * a).to_affine();
        auto bq = (q.to_jacobian() * b).to_affine();
        gt e_ab = pairing(ap, bq);
        ASSERT_EQ(e_ab, base.pow((a * b).to_canonical()));
        ASSERT_EQ(e_ab, pairing((p.to_jacobian() * (a * b)).to_affine(), q));
        ASSERT_EQ(e_ab, pairing(p, (q.to_jacobian() * (a * b)).to_affine()));
    }
    // e(P1 + P2, Q) = e(P1, Q) e(P2, Q)
    auto p1 = (p.to_jacobian() * fr::random(g)).to_affine();
    auto p2 = (p.to_jacobian() * fr::random(g)).to_affine();
    EXPECT_EQ(pairing((p1.to_jacobian() + p2).to_affine(), q), pairing(p1, q) * pairing(p2, q));
}

TEST(pairing, non_degenerate_order_r_and_identity) {
    gt e = pairing(g1_affine::generator(), g2_affine::generator());
    EXPECT_FALSE(e.is_one());
    EXPECT_TRUE(e.pow(fr::modulus).is_one());
    EXPECT_TRUE(pairing(g1_affine::identity(), g2_affine::generator()).is_one());
    EXPECT_TRUE(pairing(g1_affine::generator(), g2_affine::identity()).is_one());
    // e(-P, Q) = e(P, Q)^-1 = conj(e(P, Q)).
    EXPECT_EQ(pairing(-g1_affine::generator(), g2_affine::generator()), e.conjugate());
}

TEST(pairing, multi_miller_loop_is_the_product) {
    rng g(41);
    std::vector<g1_affine> ps;
    std::vector<g2_affine> qs;
    std::vector<g2_prepared> prepared;
    for (int i = 0; i < 3; ++i) {
        ps.push_back((g1_jacobian::generator() * fr::random(g)).to_affine());
        qs.push_back((g2_jacobian::generator() * fr::random(g)).to_affine());
    }
    ps.push_back(g1_affine::identity());
    qs.push_back(g2_affine::generator());
    ps.push_back(g1_affine::generator());
    qs.push_back(g2_affine::identity());
    for (auto& q : qs) prepared.emplace_back(q);
    EXPECT_EQ(prepared[0].coeffs.size(), 68u);
    std::vector<std::pair<g1_affine, const g2_prepared*>> terms;
    gt product = gt::one();
    for (size_t i = 0; i < ps.size(); ++i) {
        terms.emplace_back(ps[i], &prepared[i]);
        product *= pairing(ps[i], qs[i]);
    }
    EXPECT_EQ(final_exponentiation(multi_miller_loop(terms)), product);
    // The Groth16-style check: e(aP, bQ) e(-abP, Q) = 1.
    fr a = fr::random(g), b = fr::random(g);
    g2_prepared bq((g2_jacobian::generator() * b).to_affine()), q1(g2_affine::generator());
    std::vector<std::pair<g1_affine, const g2_prepared*>> check = {
        {(g1_jacobian::generator() * a).to_affine(), &bq},
        {(g1_jacobian::generator() * -(a * b)).to_affine(), &q1}};
    EXPECT_TRUE(final_exponentiation(multi_miller_loop(check)).is_one());
    check[1].first = (g1_jacobian::generator() * -(a * b + fr::one())).to_affine();
    EXPECT_FALSE(final_exponentiation(multi_miller_loop(check)).is_one());
}

TEST(pairing, final_exponentiation_lands_in_gt) {
    rng g(42);
    for (int i = 0; i < 3; ++i) {
        gt f = final_exponentiation(fp12::random(g));
        ASSERT_TRUE(f.pow(fr::modulus).is_one());
        ASSERT_EQ(f.cyclotomic_square(), f.square());
    }
}

}  // namespace
}  // namespace c2lab::ec
