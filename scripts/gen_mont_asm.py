#!/usr/bin/env python3
"""Generate the x86-64 Montgomery multiplications (BMI2 mulx, ADX adcx/adox):

  lib/ff/mont_mul_x86_64.S           the out-of-line function for N = 6 limbs (Fp), and the NTT's
                                     radix-2 butterflies over N = 4 limbs (Fr)
  lib/ff/mont_mul_x86_64_inline.hpp  the N = 4 schedule (Fr) as GCC extended asm, inlined into
                                     callers, modular add/sub for 4 and 6 limbs, and the lazy
                                     (uncorrected) sum and difference for 6
  lib/ff/fp2_x86_64.S                Fp2 product and square with lazy reduction
  lib/ff/mont_mul_avx2_x86_64.S      4-lane AVX2 Montgomery products in radix 2^29 (Fp, Fr), for
                                     the batches of CPUs without AVX-512 (gen_avx2_mul below)

    void c2lab_mont_mul_<N>(uint64_t r[N], const uint64_t a[N], const uint64_t b[N],
                            const uint64_t p[N], uint64_t n0);   // n0 = -p^-1 mod 2^64

Algorithm: CIOS (coarsely integrated operand scanning), fully unrolled. Each of the N
rounds adds a * b[i] into the accumulator T, then adds m * p with m = T[0] * n0 and drops
the zero low limb by renaming registers (no moves). Within a row the two carry chains do
different jobs: adcx (CF) joins each low product half with the previous high half, which
does not depend on T and so runs ahead; adox (OF) adds that sum into T. The path through
T is one add per limb.

Requires p < 2^(64N-1) (both BLS12-381 moduli leave the top bit free): then T < 2p after
every round, T + a*b[i] + m*p < 2^(64(N+1)) never overflows N+1 limbs, and one conditional
subtraction at the end gives the canonical result in [0, p). Cost: 2N^2 mulx + N imul.

The portable C++ path (mont_mul_portable in lib/ff/limbs.hpp) computes the same function
and the tests check one against the other. Regenerate with:
    python3 scripts/gen_mont_asm.py lib/ff
and check that the checked-in files are what it generates (ctest generated_asm_test) with:
    python3 scripts/gen_mont_asm.py --check lib/ff
"""
import os
import sys

CALLEE_SAVED = {"rbx", "rbp", "r12", "r13", "r14", "r15"}


def schedule(n, t, lo, h, a, b, p, n0):
    """The instruction list as (mnemonic, operands...) in Intel operand order.
    Memory operands are ('mem', base, limb); registers are strings.
    t: n+1 accumulator registers, lo: rax, h: two high-half temporaries."""
    ins = []
    emit = lambda *x: ins.append(x)
    mem = lambda base, k: ("mem", base, k)
    for i in range(n):
        emit("mov", "rdx", mem(b, i))
        if i == 0:
            # T = 0: a * b[0] with one carry chain.
            emit("mulx", t[1], t[0], mem(a, 0))
            for j in range(1, n):
                emit("mulx", t[j + 1], lo, mem(a, j))
                emit("add" if j == 1 else "adc", t[j], lo)
            emit("adc", t[n], "0")
        else:
            emit("xor", "eax", "eax")  # clears CF and OF
            for j in range(n):
                hi = t[n] if j == n - 1 else h[j % 2]
                emit("mulx", hi, lo, mem(a, j))
                if j > 0:
                    emit("adcx", lo, h[(j - 1) % 2])
                emit("adox", t[j], lo)
            emit("mov", "edx", "0")  # mov leaves the flags alone
            emit("adcx", t[n], "rdx")
            emit("adox", t[n], "rdx")
        # T = (T + m p) / 2^64
        emit("mov", "rdx", t[0])
        emit("imul", "rdx", n0)
        emit("xor", "eax", "eax")
        for j in range(n):
            emit("mulx", h[j % 2], lo, mem(p, j))
            if j > 0:
                emit("adcx", lo, h[(j - 1) % 2])
            emit("adox", t[j], lo)
        last = h[(n - 1) % 2]
        emit("mov", "edx", "0")
        emit("adcx", last, "rdx")
        emit("adox", t[n], last)
        t = t[1:] + t[:1]  # rename: the low limb is zero
    return ins, t


def minus_p_unless_borrow(dst, src, p, store=None):
    """dst = src - p, or src where that borrows (src below 2p: the final reduction); with
    store, each limb also stored to store(j) right after its cmov."""
    ins = []
    for j in range(len(src)):
        ins.append(("mov", dst[j], src[j]))
        ins.append(("sub" if j == 0 else "sbb", dst[j], ("mem", p, j)))
    for j in range(len(src)):
        ins.append(("cmovc", dst[j], src[j]))
        if store:
            ins.append(("mov", store(j), dst[j]))
    return ins


def final_subtract(n, t, spare, p, r):
    return minus_p_unless_borrow(spare[:n], t[:n], p, lambda j: ("mem", r, j))


def intel(op):
    def fmt(x):
        if isinstance(x, tuple):
            return f"qword ptr [{x[1]} + {8 * x[2]}]"
        return x
    return "    " + op[0] + " " + ", ".join(fmt(x) for x in op[1:])


def gen_function(n, lazy=False):
    """c2lab_mont_mul_n(r, a, b, p, n0): r = a b / R mod p. lazy: c2lab_mont_mul_n_lazy, the same
    without the final subtraction: r = a b / R + (0 or p), below 2p for a b < R p (inputs below 2p
    where 4p < R, as for Fp: 4p < 2^383)."""
    name = f"c2lab_mont_mul_{n}" + ("_lazy" if lazy else "")
    # rdi = r (saved on the stack: the register is needed), rsi = a, rdx = b (moved to r9),
    # rcx = p, r8 = n0
    t = ["r11", "rbx", "rbp", "r12", "r13", "r14", "r15"][: n + 1]
    h = ["r10", "rdi"]
    saved = [r for r in t if r in CALLEE_SAVED]
    out = [f".globl {name}", f".type {name},@function", ".p2align 5", f"{name}:", ".cfi_startproc"]
    for r in saved + ["rdi"]:
        out += [f"    push {r}", "    .cfi_adjust_cfa_offset 8"]
        if r != "rdi":
            out.append(f"    .cfi_rel_offset {r}, 0")
    out.append("    mov r9, rdx")
    body, t = schedule(n, t, "rax", h, "rsi", "r9", "rcx", "r8")
    out += [intel(x) for x in body]
    out += ["    pop rsi", "    .cfi_adjust_cfa_offset -8"]  # rsi = r
    if lazy:
        out += [intel(("mov", ("mem", "rsi", j), t[j])) for j in range(n)]
    else:
        spare = [t[n], "rax", "r10", "rdi", "r9", "rdx", "r8"][:n]
        out += [intel(x) for x in final_subtract(n, t, spare, "rcx", "rsi")]
    for r in reversed(saved):
        out += [f"    pop {r}", "    .cfi_adjust_cfa_offset -8", f"    .cfi_restore {r}"]
    out += ["    ret", ".cfi_endproc", f".size {name}, .-{name}"]
    return "\n".join(out)


def att(op):
    """Intel-order tuple -> AT&T text for GCC extended asm (%% registers, %[name] operands)."""
    def fmt(x):
        if isinstance(x, tuple):
            return f"{8 * x[2]}(%[{x[1]}])"
        if x == "0":
            return "$0"
        if x == "n0":
            return "%[n0]"
        return "%%" + x
    mnem = {"mov": "movq", "mulx": "mulxq", "add": "addq", "adc": "adcq", "adcx": "adcxq", "adox": "adoxq",
            "imul": "imulq", "sub": "subq", "sbb": "sbbq", "cmovc": "cmovcq"}
    name, args = op[0], list(op[1:])
    if args and args[0] in ("eax", "edx"):
        return {"xor": "xorl %%eax, %%eax", "mov": "movl $0, %%edx"}[name]
    return mnem[name] + " " + ", ".join(fmt(x) for x in reversed(args))


def inline_product(n):
    """The inline asm product a * b / R mod p (operands %[a], %[b], %[p], %[n0]): the schedule
    and the final subtraction into the spare registers, which hold the result. Returns
    (body, accumulator registers, high-half registers, result registers)."""
    t = ["r8", "r9", "r10", "r11", "r12", "r13", "r14"][: n + 1]
    h = ["rcx", "r13" if n == 4 else "r15"]
    body, t = schedule(n, t, "rax", h, "a", "b", "p", "n0")
    spare = [t[n], "rax", h[0], h[1], "rdx"][:n]
    body += minus_p_unless_borrow(spare, t[:n], "p")
    return body, t, h, spare


def gen_inline(n):
    """The result stays in registers (bound to output variables), so the caller can keep
    it in registers or store it straight to its destination: no store and reload on the
    dependency chain of a sequence of products."""
    body, t, h, spare = inline_product(n)
    clobbers = sorted(set(t + h + ["rax", "rdx"]) - set(spare))
    lines = ["// Generated by scripts/gen_mont_asm.py; do not edit by hand.",
             f"// {n}-limb Montgomery multiplication as inline asm; mont_mul_x86_64.S has the same schedule.",
             "#pragma once", "", "#include <array>", "#include <cstdint>", "", "namespace c2lab::ff::detail {", "",
             f"inline std::array<uint64_t, {n}> mont_mul_{n}_inline(const uint64_t* a, const uint64_t* b,",
             "                                                 const uint64_t* p, uint64_t n0) noexcept {"]
    for j in range(n):
        lines.append(f'    register uint64_t r{j} asm("{spare[j]}");')
    lines.append("    __asm__ volatile(  // volatile: see gen_add_sub")
    lines += [f'        "{att(x)}\\n\\t"' for x in body]
    # A "memory" clobber covers the reads through a, b and p (declaring the three arrays as
    # "m" operands instead makes GCC 12 fail in register allocation).
    lines += ["        : " + ", ".join(f'"=&r"(r{j})' for j in range(n)),
              '        : [a] "r"(a), [b] "r"(b), [p] "r"(p), [n0] "rm"(n0)',
              "        : " + ", ".join(f'"{c}"' for c in clobbers) + ', "cc", "memory");',
              "    return {" + ", ".join(f"r{j}" for j in range(n)) + "};",
              "}", "", "}  // namespace c2lab::ff::detail", ""]
    return "\n".join(lines)


def gen_mul_add_inline(n):
    """acc = (acc + a * b / R) mod p in one asm block that stores acc itself (a linear
    combination's terms summed, coefficient times value): the product's result registers
    are added to acc and reduced without leaving the block. Handed back to the compiler and
    added by mod_add, the four result registers were packed into a vector register, stored and
    reloaded (bench_synth, perf). acc may alias a or b: every read comes before the stores."""
    body, t, h, v = inline_product(n)  # v: the product, below p
    for j in range(n):  # v += acc (< 2p, no carry out)
        body.append(("add" if j == 0 else "adc", v[j], ("mem", "acc", j)))
    body += minus_p_unless_borrow(t[:n], v, "p")
    for j in range(n):
        body.append(("mov", ("mem", "acc", j), t[j]))
    clobbers = sorted(set(t + h + ["rax", "rdx"]))
    lines = [f"// acc = acc + a * b / R mod p ({n} limbs, every value below p); the asm stores acc.",
             f"[[gnu::always_inline]] inline void mont_mul_add_{n}_to(uint64_t* acc, const uint64_t* a, const uint64_t* b,",
             "                                                const uint64_t* p, uint64_t n0) noexcept {",
             "    __asm__ volatile(  // volatile: its only effect is the store"]
    lines += [f'        "{att(x)}\\n\\t"' for x in body]
    lines += ["        :",
              '        : [acc] "r"(acc), [a] "r"(a), [b] "r"(b), [p] "r"(p), [n0] "rm"(n0)',
              "        : " + ", ".join(f'"{c}"' for c in clobbers) + ', "cc", "memory");',
              "}", ""]
    return lines


def gen_add_sub(n):
    """Modular addition and subtraction as single asm blocks with the result in registers.
    Written in asm because GCC, once the adc/sbb intrinsics are inlined into large tower
    functions, parks the carry flag in a byte register between limbs and spills heavily.
    4 limbs: both candidates in registers and a cmov per limb picks one. 6 limbs (too few
    registers for two copies) correct by p: m = -1 on borrow, test sets ZF = (m == 0) and clears CF,
    then per limb x = 0, cmovnz x = p_j, adcx x into s_j. adcx writes CF alone, so ZF holds
    across the chain. (pdep x, m, [p + 8j] did it in one instruction without touching the
    flags, but AMD before Zen 3 runs pdep in microcode, at a cost that grows with the set bits
    of its mask, here p_j; mov, cmov and adcx are single uops everywhere. bzhi would be one
    instruction too but writes CF.)

    The blocks that return their result in registers are volatile too: they read a, b and p
    through pointers, and GCC takes a non-volatile asm for a function of its operands alone
    (the "memory" clobber orders it against stores but does not make it an input), so two
    blocks with the same pointers became one value: `w = w + w` four times in a loop was
    computed once (GCC 12, -O3; the test "inline_asm_reads_memory_each_time" in mont_field_test.cpp)."""
    s = [f"%[s{j}]" for j in range(n)]
    add = load_limbs(s) + carry_chain("addq", "adcq", "b", s)  # < 2p: no carry out
    sub = load_limbs(s) + carry_chain("subq", "sbbq", "b", s)
    if n <= 4:
        # Registers to spare for a second copy: t = s - p (add) or s + p (sub), then a cmov per
        # limb keeps s or takes t. s + p carries out exactly when a - b borrowed.
        t = [f"%[t{j}]" for j in range(n)]
        scratch = [f"s{j}" for j in range(n)] + [f"t{j}" for j in range(n)]
        add += [f"movq {s[j]}, {t[j]}" for j in range(n)]
        add += carry_chain("subq", "sbbq", "p", t)
        add += [f"cmovncq {t[j]}, {s[j]}" for j in range(n)]
        sub += [f"movq {s[j]}, {t[j]}" for j in range(n)]
        sub += carry_chain("addq", "adcq", "p", t)
        sub += [f"cmovcq {t[j]}, {s[j]}" for j in range(n)]
    else:
        scratch = [f"s{j}" for j in range(n)] + ["m", "x"]
        add += carry_chain("subq", "sbbq", "p", s)
        add += masked_correction(s)
        sub += masked_correction(s)
    extra = scratch[n:]

    def func(name, body):
        outs = [f'[s{j}] "=&r"(r[{j}])' for j in range(n)] + [f'[{v}] "=&r"({v})' for v in extra]
        return ([f"inline std::array<uint64_t, {n}> {name}(const uint64_t* a, const uint64_t* b, const uint64_t* p) noexcept {{",
                 f"    std::array<uint64_t, {n}> r;",
                 "    uint64_t " + ", ".join(extra) + ";",
                 "    __asm__ volatile(  // volatile: it reads a, b and p through the pointers (see gen_add_sub)"]
                + [f'        "{x}\\n\\t"' for x in body]
                + ["        : " + ", ".join(outs),
                   '        : [a] "r"(a), [b] "r"(b), [p] "r"(p)',
                   '        : "cc", "memory");', "    return r;", "}", ""])

    out = func(f"mod_add_{n}_inline", add) + func(f"mod_sub_{n}_inline", sub)
    store = store_limbs(s)
    out += storing_function(f"mod_add_{n}_to", add + store, scratch)
    out += storing_function(f"mod_sub_{n}_to", sub + store, scratch)
    return out


def masked_correction(s):
    """After a subtraction chain: p added back to the registers s where it borrowed (see gen_add_sub)."""
    out = ["sbbq %[m], %[m]", "testq %[m], %[m]"]
    for j, reg in enumerate(s):
        out += ["movq $0, %[x]", f"cmovnzq {8 * j}(%[p]), %[x]", f"adcxq %[x], {reg}"]
    return out


def storing_function(name, body, scratch, with_p=True):
    """void name(r, a, b, p) around one asm block that stores its result through r itself
    (r may alias a or b: every load comes first). Nothing stays live in registers across the
    block, so the compiler has no multi-register value to spill or to copy through the stack.
    with_p=False: name(r, a, b), for a body that never reads p."""
    outs = [f'[{v}] "=&r"({v})' for v in scratch]
    params = "uint64_t* r, const uint64_t* a, const uint64_t* b" + (", const uint64_t* p" if with_p else "")
    ins = '[r] "r"(r), [a] "r"(a), [b] "r"(b)' + (', [p] "r"(p)' if with_p else "")
    return ([f"[[gnu::always_inline]] inline void {name}({params}) noexcept {{",
             "    uint64_t " + ", ".join(scratch) + ";",
             "    __asm__ volatile(  // volatile: its only effect is the store (the outputs are scratch)"]
            + [f'        "{x}\\n\\t"' for x in body]
            + ["        : " + ", ".join(outs),
               "        : " + ins,
               '        : "cc", "memory");', "}", ""])


def gen_lazy_add_sub(n):
    """r = a + p - b and r = a + b with no correction (mont_mul.hpp lazy_sub_into, lazy_add_into:
    for values below 2p that only feed products), stored by the asm; r may alias a or b. For a,
    b < p: a + p < 2^(64n) and a + p - b > 0, so neither chain carries or borrows out."""
    s = [f"%[s{j}]" for j in range(n)]
    scratch = [f"s{j}" for j in range(n)]
    out = [f"// r = a + p - b and r = a + b without a conditional step (lazy_sub_into, lazy_add_into in",
           f"// mont_mul.hpp): {3 * n} and {2 * n} instructions where the reduced forms above take 32 and 38."]
    out += storing_function(f"lazy_sub_{n}_to", load_limbs(s) + carry_chain("addq", "adcq", "p", s) +
                            carry_chain("subq", "sbbq", "b", s) + store_limbs(s), scratch)
    out += storing_function(f"lazy_add_{n}_to", load_limbs(s) + carry_chain("addq", "adcq", "b", s) + store_limbs(s),
                            scratch, with_p=False)
    return out


def load_limbs(s):
    """The registers s loaded with the limbs of a (AT&T syntax, as every block here)."""
    return [f"movq {8 * j}(%[a]), {reg}" for j, reg in enumerate(s)]


def carry_chain(first, rest, src, s):
    """One add or subtract chain of src's limbs into the registers s: first on limb 0, rest (with
    the carry or borrow) on the others."""
    return [f"{first if j == 0 else rest} {8 * j}(%[{src}]), {reg}" for j, reg in enumerate(s)]


def store_limbs(s):
    """The registers s stored into r's limbs."""
    return [f"movq {reg}, {8 * j}(%[r])" for j, reg in enumerate(s)]


# ---- Fp2 = Fp[u]/(u^2+1) multiplication and squaring with lazy reduction ----------------
#
# One function each, no calls inside. Products are kept as 768-bit integers and reduced
# only at the end (two Montgomery reductions per Fp2 result instead of three for mul):
#   mul:    t0 = a0 b0, t1 = a1 b1, t2 = (a0 + a1)(b0 + b1)            3 wide products
#           c0 = REDC(t0 - t1 + p^2), c1 = REDC(t2 - t0 - t1)           2 reductions
#   square: c0 = REDC((a0 + a1)(a0 - a1 + p)), c1 = REDC(2 a0 * a1)     2 + 2
# Sums are not reduced: they stay below 2p < 2^382, so every REDC input is below 4p^2 < pR
# (R = 2^384) and REDC returns a value below 2p, brought below p by one subtraction.
# Cost: mul 180 mulx (three Montgomery products would be 216), square 144.

BLS12_381_P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab


def limbs_of(x, n):
    return [(x >> (64 * i)) & (2**64 - 1) for i in range(n)]


FP2_T = ["r10", "r11", "rbx", "rbp", "r12", "r13", "r14"]  # accumulator (7 limbs)
FP2_H = ["r8", "r9"]
CONST = "rip + c2lab_fp2_consts"  # p (6 limbs), n0, p^2 (12 limbs)


def zero(reg):
    """xor reg, reg (in its 32-bit name for r10-r15): reg = 0, CF and OF cleared."""
    r = reg + "d" if reg.startswith("r1") else reg
    return ("xor", r, r)


def wide_product(dst, a, b):
    """dst[0..12) = a * b, 6 x 6 limbs; each operand is (base, limb offset)."""
    out = []
    t = list(FP2_T)
    lo, h = "rax", FP2_H
    m = lambda x, k: ("mem", x[0], x[1] + k)
    for i in range(6):
        out.append(("mov", "rdx", m(b, i)))
        if i == 0:
            out.append(("mulx", t[1], t[0], m(a, 0)))
            for j in range(1, 6):
                out.append(("mulx", t[j + 1], lo, m(a, j)))
                out.append(("add" if j == 1 else "adc", t[j], lo))
            out.append(("adc", t[6], "0"))
        else:
            out.append(("xor", "eax", "eax"))
            for j in range(6):
                out.append(("mulx", t[6] if j == 5 else h[j % 2], lo, m(a, j)))
                if j > 0:
                    out.append(("adcx", lo, h[(j - 1) % 2]))
                out.append(("adox", t[j], lo))
            out.append(("mov", "edx", "0"))
            out.append(("adcx", t[6], "rdx"))
            out.append(("adox", t[6], "rdx"))
        out.append(("mov", m(dst, i), t[0]))
        t = t[1:] + t[:1]
    for j in range(6):
        out.append(("mov", m(dst, 6 + j), t[j]))
    return out


def redc(dst, src, p=CONST, n0=("mem", CONST, 6), lazy=False):
    """dst[0..6) = src[0..12) / R mod p, fully reduced; src < pR. p: the base of the modulus's
    limbs, n0: where -p^-1 mod 2^64 is read (the Fp2 constants by default). lazy: without the
    final subtraction, below 2p."""
    out = []
    t = list(FP2_T)
    lo, h = "rax", FP2_H
    m = lambda x, k: ("mem", x[0], x[1] + k)
    for j in range(6):
        out.append(("mov", t[j], m(src, j)))
    for i in range(6):
        out.append(("mov", "rdx", t[0]))
        out.append(("imul", "rdx", n0))
        out.append(zero(t[6]))
        for j in range(6):
            out.append(("mulx", h[j % 2], lo, ("mem", p, j)))
            if j > 0:
                out.append(("adcx", lo, h[(j - 1) % 2]))
            out.append(("adox", t[j], lo))
        out.append(("mov", "edx", "0"))
        out.append(("adcx", h[1], "rdx"))
        out.append(("adox", t[6], h[1]))
        t = t[1:] + t[:1]
    # U < p + 1 in t[0..6); add the high half (< p): the sum is below 2p
    for j in range(6):
        out.append(("add" if j == 0 else "adc", t[j], m(src, 6 + j)))
    if lazy:
        return out + [("mov", m(dst, j), t[j]) for j in range(6)]
    spare = [t[6], "rax", "r8", "r9", "rdx", "r15"]
    out += minus_p_unless_borrow(spare, t[:6], p, lambda j: m(dst, j))
    return out


def wide_square(dst, a):
    """dst[0..12) = a^2, 6 limbs: the 15 products a_i a_j (i < j) once, doubled, plus the 6
    squares a_i^2: 21 mulx against 36 for a * a. a and dst are (base, limb offset)."""
    out = []
    t = list(FP2_T)  # a window of 7 limbs over positions i .. i + 6 of the off-diagonal sum
    lo, hi = "rax", FP2_H[0]
    m = lambda x, k: ("mem", x[0], x[1] + k)
    # row 0: a0 * (a1 .. a5) at positions 1 .. 6
    out.append(("mov", "rdx", m(a, 0)))
    out.append(zero(t[0]))
    out.append(("mulx", t[2], t[1], m(a, 1)))
    for j in range(2, 6):
        out.append(("mulx", t[j + 1], lo, m(a, j)))
        out.append(("add" if j == 2 else "adc", t[j], lo))
    out.append(("adc", t[6], "0"))
    out.append(("mov", m(dst, 0), t[0]))
    t = t[1:] + t[:1]
    # rows 1 .. 4: a_i * a_j (j > i) at window offsets j (lo, OF chain) and j + 1 (hi, CF chain)
    for i in range(1, 5):
        out.append(zero(t[6]))  # the window's new top limb; also clears CF and OF
        out.append(("mov", "rdx", m(a, i)))
        for j in range(i + 1, 6):
            out.append(("mulx", hi, lo, m(a, j)))
            out.append(("adox", t[j], lo))
            out.append(("adcx", t[j + 1], hi))
        out.append(("mov", "edx", "0"))
        out.append(("adox", t[6], "rdx"))  # a carry out of t[5]; the sum fits, so t[6] takes it
        out.append(("mov", m(dst, i), t[0]))
        t = t[1:] + t[:1]
    # positions 5 .. 10 in t[0..5]; position 11 is zero
    for k in range(6):
        out.append(("mov", m(dst, 5 + k), t[k]))
    out.append(("mov", m(dst, 11), "0"))
    # dst = 2 dst + sum a_i^2 2^(128 i): doubling on the CF chain, the squares on the OF chain
    out.append(("xor", "eax", "eax"))
    for i in range(6):
        out.append(("mov", "rdx", m(a, i)))
        out.append(("mulx", hi, lo, "rdx"))
        for k, sq in ((2 * i, lo), (2 * i + 1, hi)):
            out.append(("mov", t[0], m(dst, k)))
            out.append(("adcx", t[0], t[0]))
            out.append(("adox", t[0], sq))
            out.append(("mov", m(dst, k), t[0]))
    return out


def gen_square_function(lazy=False):
    """void c2lab_mont_sqr_6(uint64_t r[6], const uint64_t a[6], const uint64_t p[6], uint64_t n0):
    r = a^2 / R mod p (a < p), fully reduced; r may alias a. The square of a as 12 limbs
    (wide_square, 21 mulx), then one Montgomery reduction (redc, 36 mulx + 6 imul): 57 mulx
    against the CIOS product's 72. lazy: c2lab_mont_sqr_6_lazy, the same without the final
    subtraction, below 2p for a below 2p (a^2 < 4p^2 < pR: the high half stays below p)."""
    name = "c2lab_mont_sqr_6" + ("_lazy" if lazy else "")
    body = [("mov", ("mem", "rsp", 12), "rcx"), ("mov", "rcx", "rdx")]  # n0 to the frame, p to rcx
    body += wide_square(("rsp", 0), ("rsi", 0))
    body += redc(("rdi", 0), ("rsp", 0), p="rcx", n0=("mem", "rsp", 12), lazy=lazy)
    return framed_function(name, body, 14)


def wide_addsub(dst, ops, n):
    """dst = dst (+|-) each (op, src) in turn, n limbs, in memory; carries wrap mod 2^(64n)."""
    out = []
    m = lambda x, k: ("mem", x[0], x[1] + k)
    for op, src in ops:
        for j in range(n):
            out.append(("mov", "rax", m(dst, j)))
            first, rest = ("add", "adc") if op == "+" else ("sub", "sbb")
            out.append((first if j == 0 else rest, "rax", m(src, j)))
            out.append(("mov", m(dst, j), "rax"))
    return out


def copy_add(dst, a, b, n):
    """dst = a + b (n limbs, no reduction)."""
    out = []
    m = lambda x, k: ("mem", x[0], x[1] + k)
    regs = FP2_T[:n]
    for j in range(n):
        out.append(("mov", regs[j], m(a, j)))
    for j in range(n):
        out.append(("add" if j == 0 else "adc", regs[j], m(b, j)))
    for j in range(n):
        out.append(("mov", m(dst, j), regs[j]))
    return out


def framed_function(name, body, frame_limbs):
    saved = ["rbx", "rbp", "r12", "r13", "r14", "r15"]
    out = [f".globl {name}", f".type {name},@function", ".p2align 5", f"{name}:", ".cfi_startproc"]
    for r in saved:
        out += [f"    push {r}", "    .cfi_adjust_cfa_offset 8", f"    .cfi_rel_offset {r}, 0"]
    out += [f"    sub rsp, {8 * frame_limbs}", f"    .cfi_adjust_cfa_offset {8 * frame_limbs}"]
    out += [intel(x) for x in body]
    out += [f"    add rsp, {8 * frame_limbs}", f"    .cfi_adjust_cfa_offset -{8 * frame_limbs}"]
    for r in reversed(saved):
        out += [f"    pop {r}", "    .cfi_adjust_cfa_offset -8", f"    .cfi_restore {r}"]
    out += ["    ret", ".cfi_endproc", f".size {name}, .-{name}"]
    return "\n".join(out)


def gen_fp2():
    # void c2lab_fp2_mul(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]);
    # void c2lab_fp2_sqr(uint64_t r[12], const uint64_t a[12]);
    # rdi = r, rsi = a, rdx = b (moved to rcx); r may alias a or b (written last).
    A0, A1 = ("rsi", 0), ("rsi", 6)
    B0, B1 = ("rcx", 0), ("rcx", 6)
    SA, SB, T0, T1, T2 = ("rsp", 0), ("rsp", 6), ("rsp", 12), ("rsp", 24), ("rsp", 36)
    P2 = (CONST, 7)
    mul = [("mov", "rcx", "rdx")]
    mul += copy_add(SA, A0, A1, 6) + copy_add(SB, B0, B1, 6)
    mul += wide_product(T0, A0, B0) + wide_product(T1, A1, B1) + wide_product(T2, SA, SB)
    mul += wide_addsub(T2, [("-", T0), ("-", T1)], 12)
    mul += wide_addsub(T0, [("-", T1), ("+", P2)], 12)
    mul += redc(("rdi", 0), T0) + redc(("rdi", 6), T2)
    # Square: two fused Montgomery products (CIOS) on unreduced operands below 2p: the output
    # (ab + Mp)/R < (4p^2 + pR)/R < 2p, so one subtraction still reduces it. No wide products
    # through the stack. c1 first: it reads a1 before writing r + 6, then c0 from the stack.
    P = (CONST, 0)
    sq = copy_add(SA, A0, A1, 6)          # a0 + a1
    sq += copy_add(SB, A0, P, 6)          # a0 + p
    sq += wide_addsub(SB, [("-", A1)], 6)  # a0 + p - a1 > 0
    sq += copy_add(T0, A0, A0, 6)         # 2 a0
    spare = lambda t: [t[6], "rax", "r8", "r9", "rdx", "r15"]
    body, t = schedule(6, list(FP2_T), "rax", FP2_H, "rsp", "rsp + 48", CONST, ("mem", CONST, 6))
    sq += body + final_subtract(6, t, spare(t), CONST, "rdi")
    body, t = schedule(6, list(FP2_T), "rax", FP2_H, "rsp + 96", "rsi + 48", CONST, ("mem", CONST, 6))
    sq += body + final_subtract(6, t, spare(t), CONST, "rdi + 48")
    # Wide ("fp2x2") forms for lazy reduction in the tower: the result is left unreduced, as two
    # 768-bit integers in [0, p 2^384) standing for x / R^2 (c2lab_fp2_redc turns it into an
    # Fp2 element). r is 24 limbs and must not overlap a or b.
    #   mul_wide:  c0 = a0 b0 - a1 b1 + p^2 < 2p^2,  c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1 < 2p^2
    #   sqr_wide:  c0 = (a0 + a1)(a0 - a1 + p) < 4p^2,  c1 = 2a0 * a1 < 2p^2
    # (4p^2 < p 2^384 since p < 2^381.) Cost: 108 mulx (mul), 72 (sqr); redc: 72 per Fp2.
    R0, R1 = ("rdi", 0), ("rdi", 12)
    mulw = [("mov", "rcx", "rdx")]
    mulw += copy_add(SA, A0, A1, 6) + copy_add(SB, B0, B1, 6)
    mulw += wide_product(R0, A0, B0) + wide_product(T1, A1, B1) + wide_product(R1, SA, SB)
    mulw += wide_addsub(R1, [("-", R0), ("-", T1)], 12)
    mulw += wide_addsub(R0, [("-", T1), ("+", P2)], 12)
    sqw = copy_add(SA, A0, A1, 6)          # a0 + a1
    sqw += copy_add(SB, A0, P, 6)          # a0 + p
    sqw += wide_addsub(SB, [("-", A1)], 6)  # a0 + p - a1 > 0
    sqw += copy_add(T0, A0, A0, 6)         # 2 a0
    sqw += wide_product(R1, T0, A1) + wide_product(R0, SA, SB)
    # void c2lab_fp2_norm(uint64_t r[6], const uint64_t a[12]): r = a0^2 + a1^2 (the norm a conj(a),
    # in Montgomery form), fully reduced, for a0, a1 below 2p: the two squares as 12 limbs, summed
    # (below 8p^2 < pR), one reduction. 78 mulx against 114 for two Montgomery squares and an
    # addition. r may alias a.
    nrm = wide_square(T0, A0) + wide_square(T1, A1) + wide_addsub(T0, [("+", T1)], 12)
    nrm += redc(("rdi", 0), T0)
    # void c2lab_fp2_redc(uint64_t r[12], const uint64_t a[24]);  r may equal a (each half of a
    # is read before the limbs of r over it are written); no other overlap.
    red = redc(("rdi", 0), ("rsi", 0)) + redc(("rdi", 6), ("rsi", 12))
    consts = limbs_of(BLS12_381_P, 6) + [(-pow(BLS12_381_P, -1, 2**64)) % 2**64] + limbs_of(BLS12_381_P**2, 12)
    data = [".section .rodata", ".p2align 6", "c2lab_fp2_consts:  # p (6 limbs), -p^-1 mod 2^64, p^2 (12 limbs)"]
    data += [f"    .quad 0x{c:016x}" for c in consts]
    return "\n".join([".text", framed_function("c2lab_fp2_mul", mul, 48), "", framed_function("c2lab_fp2_sqr", sq, 48),
                      "", framed_function("c2lab_fp2_mul_wide", mulw, 48), "",
                      framed_function("c2lab_fp2_sqr_wide", sqw, 48), "", framed_function("c2lab_fp2_redc", red, 0),
                      "", framed_function("c2lab_fp2_norm", nrm, 48),
                      ""] + data)


# ---- NTT butterflies over 4-limb Montgomery elements (Fr) -------------------------------
#
# void c2lab_mont_butterflies_4(uint64_t* x, uint64_t* y, const uint64_t* w, size_t count,
#                               const uint64_t p[4], uint64_t n0, size_t xy_step, size_t w_step);
# For i < count, on elements of 4 limbs at x + i xy_step, y + i xy_step and w + i w_step (steps in
# bytes: 32 for contiguous arrays, w_step 0 for one twiddle, 2 h 32 for the pairs of the stage of
# blocks of 2h read in place; no overlap):
#   v = w_i y_i / R mod p (the inline product's schedule and final subtraction),
#   y_i = x_i - v mod p, then x_i = x_i + v mod p (the mod_sub / mod_add blocks above).
# The steps are read from the stack (the 7th and 8th arguments) by the loop's pointer additions.
# One loop with every value in registers: the C++ loop of the same operations spilled the
# product and the loaded x_i to the stack and read them back for the sum and the difference.
# Cost per butterfly: 32 mulx + 4 imul, 12 loads of x_i, y_i, w_i, 8 stores.
def gen_butterflies(pdep=False):
    name = "c2lab_mont_butterflies_4" + ("_pdep" if pdep else "")
    lbl = ".Lbutterflies_4" + ("_pdep" if pdep else "")
    n = 4
    t = ["r10", "r11", "r12", "r13", "r14"]
    h = ["r15", "rbp"]
    saved = ["rbx", "rbp", "r12", "r13", "r14", "r15"]
    out = [f".globl {name}", f".type {name},@function", ".p2align 5", f"{name}:", ".cfi_startproc"]
    for r in saved:
        out += [f"    push {r}", "    .cfi_adjust_cfa_offset 8", f"    .cfi_rel_offset {r}, 0"]
    # n0 lives on the stack (imul reads it there): every register is needed in the loop.
    out += ["    push r9", "    .cfi_adjust_cfa_offset 8", "    mov rbx, rdx", "    test rcx, rcx",
            f"    jz {lbl}_done", ".p2align 4", f"{lbl}_loop:"]
    body, tt = schedule(n, list(t), "rax", h, "rsi", "rbx", "r8", ("mem", "rsp", 0))
    v = [tt[n], "rax", h[0], h[1]]
    body += minus_p_unless_borrow(v, tt[:n], "r8")
    d = tt[:n]  # free again once v is out
    def correction():
        if pdep:  # p_j or 0 (pdep of the mask m = 0 or -1 under p_j) added; pdep leaves the flags
            ops = [("sbb", "rdx", "rdx")]
            for j in range(n):
                ops += [("pdep", "r9", "rdx", ("mem", "r8", j)), ("add" if j == 0 else "adc", d[j], "r9")]
            return ops
        ops = [("sbb", "rdx", "rdx"), ("test", "rdx", "rdx")]  # p_j or 0 added (see gen_add_sub)
        for j in range(n):
            ops += [("mov", "r9", "0"), ("cmovnz", "r9", ("mem", "r8", j)), ("adcx", d[j], "r9")]
        return ops
    for j in range(n):  # y = x - v (+ p on borrow)
        body.append(("mov", d[j], ("mem", "rdi", j)))
    for j in range(n):
        body.append(("sub" if j == 0 else "sbb", d[j], v[j]))
    body += correction()
    body += [("mov", ("mem", "rsi", j), d[j]) for j in range(n)]
    for j in range(n):  # x = x + v (- p unless that borrows); x + v < 2p < 2^256
        body.append(("mov", d[j], ("mem", "rdi", j)))
    for j in range(n):
        body.append(("add" if j == 0 else "adc", d[j], v[j]))
    for j in range(n):
        body.append(("sub" if j == 0 else "sbb", d[j], ("mem", "r8", j)))
    body += correction()
    body += [("mov", ("mem", "rdi", j), d[j]) for j in range(n)]
    out += [intel(x) for x in body]
    # 7 pushes and the return address: the 7th argument at rsp + 64, the 8th at rsp + 72
    out += ["    add rdi, qword ptr [rsp + 64]", "    add rsi, qword ptr [rsp + 64]", "    add rbx, qword ptr [rsp + 72]",
            "    dec rcx", f"    jnz {lbl}_loop",
            f"{lbl}_done:", "    pop r9", "    .cfi_adjust_cfa_offset -8"]
    for r in reversed(saved):
        out += [f"    pop {r}", "    .cfi_adjust_cfa_offset -8", f"    .cfi_restore {r}"]
    out += ["    ret", ".cfi_endproc", f".size {name}, .-{name}"]
    return "\n".join(out)


def gen_wide_add_sub():
    """(a + b) and (a - b) modulo p 2^384 for 12-limb a, b in [0, p 2^384): the unreduced values
    of the lazy tower formulas (blst's add_mod_384x384 / sub_mod_384x384). The low half is a
    plain carry chain stored as it goes (mov leaves the flags alone); the high half continues
    it and is corrected by p as in mod_add: a_hi + b_hi + carry < 2p, so one subtraction of p
    (added back on borrow) reduces it. The asm stores the result; r may alias a or b."""
    s = [f"%[s{j}]" for j in range(6)]
    def body(op):
        first, rest = ("addq", "adcq") if op == "+" else ("subq", "sbbq")
        out = []
        for j in range(6):
            out += [f"movq {8 * j}(%[a]), %[t]", f"{first if j == 0 else rest} {8 * j}(%[b]), %[t]",
                    f"movq %[t], {8 * j}(%[r])"]
        out += [f"movq {48 + 8 * j}(%[a]), {s[j]}" for j in range(6)]
        out += [f"{rest} {48 + 8 * j}(%[b]), {s[j]}" for j in range(6)]
        if op == "+":
            out += [f"{'subq' if j == 0 else 'sbbq'} {8 * j}(%[p]), {s[j]}" for j in range(6)]
        out += masked_correction(s)
        out += [f"movq {s[j]}, {48 + 8 * j}(%[r])" for j in range(6)]
        return out
    lines = ["// (a + b) and (a - b) modulo p 2^384 for 768-bit a, b < p 2^384 (the lazy tower's",
             "// unreduced products); the asm stores r, which may alias a or b. Need BMI2 and ADX.", ""]
    scratch = [f"s{j}" for j in range(6)] + ["t", "m", "x"]
    for name, op in (("wide_add_12_to", "+"), ("wide_sub_12_to", "-")):
        lines += storing_function(name, body(op), scratch)
    return lines


def avx2_mul_body(n, W, regs, base, n0, mask):
    """The instructions of one product of gen_avx2_mul as a list of lines: regs names the column
    accumulators (W of them), the limb of a ("a"), q ("q"), the product temporary ("tmp") and the
    carry ("carry"); base the address registers of r, a, b, p (the constants) and the q's stack
    area (keys "r", "a", "b", "p", "q", "q_off"); n0 and mask are operands (a register or
    memory)."""
    out = []
    e = out.append
    mem = lambda b, i, off=0: f"YMMWORD PTR [{b}+{off + 32 * i}]"
    A, B, P, R = (lambda i: mem(base["a"], i)), (lambda i: mem(base["b"], i)), (lambda i: mem(base["p"], i)), \
        (lambda i: mem(base["r"], i))
    Q = lambda i: mem(base["q"], i, base["q_off"])
    acc, av, qv, tmp, carry = regs["acc"], regs["a"], regs["q"], regs["tmp"], regs["carry"]

    def mac(a, x, y):
        e(f"    vpmuludq {tmp}, {x}, {y}")
        e(f"    vpaddq {a}, {a}, {tmp}")

    e(f"    vpxor {carry}, {carry}, {carry}")
    ncol = 2 * n - 1
    for k0 in range(0, ncol, W):
        ks = list(range(k0, min(k0 + W, ncol)))
        reg = {k: acc[idx] for idx, k in enumerate(ks)}
        started = set()
        for i in range(n):
            cols = [k for k in ks if 0 <= k - i < n]
            if not cols:
                continue
            e(f"    vmovdqu {av}, {A(i)}")
            for k in cols:
                if k in started:
                    mac(reg[k], av, B(k - i))
                else:
                    e(f"    vpmuludq {reg[k]}, {av}, {B(k - i)}")
                    started.add(k)
        for i in range(min(k0, n)):
            cols = [k for k in ks if 0 <= k - i < n]
            if cols:
                e(f"    vmovdqa {qv}, {Q(i)}")
                for k in cols:
                    mac(reg[k], qv, P(k - i))
        for k in ks:
            r = reg[k]
            e(f"    vpaddq {r}, {r}, {carry}")
            if k < n:
                e(f"    vpmuludq {qv}, {r}, {n0}")
                e(f"    vpand {qv}, {qv}, {mask}")
                e(f"    vmovdqa {Q(k)}, {qv}")
                mac(r, qv, P(0))
                for k2 in ks:
                    if k < k2 < k + n:
                        mac(reg[k2], qv, P(k2 - k))
                e(f"    vpsrlq {carry}, {r}, 29")
            else:
                e(f"    vpand {qv}, {r}, {mask}")
                e(f"    vmovdqu {R(k - n)}, {qv}")
                e(f"    vpsrlq {carry}, {r}, 29")
    e(f"    vmovdqu {R(n - 1)}, {carry}")
    return out


def avx2_frame(name, n_products, n, body, load_k=""):
    out = [f".globl {name}\n.type {name},@function\n.p2align 5\n{name}:\n.cfi_startproc",
           "    push rbp\n    .cfi_adjust_cfa_offset 8\n    .cfi_rel_offset rbp, 0\n    mov rbp, rsp\n"
           "    .cfi_def_cfa_register rbp\n    and rsp, -32\n    sub rsp, " + str(32 * n * n_products)]
    if load_k:
        out.append(load_k)
    out += body
    out.append("    mov rsp, rbp\n    .cfi_def_cfa_register rsp\n    pop rbp\n    .cfi_adjust_cfa_offset -8\n"
               "    .cfi_restore rbp\n    vzeroupper\n    ret\n.cfi_endproc")
    out.append(f".size {name}, .-{name}")
    return "\n".join(out)


def gen_avx2_mul(n, name):
    """A 4-lane Montgomery product in radix 2^29 with AVX2 (vpmuludq: the low 32 bits of each
    64-bit lane multiplied, 29 x 29 -> 58 bits), n limbs per element, structure of arrays:

        void NAME(uint64_t r[n][4], const uint64_t a[n][4], const uint64_t b[n][4],
                  const uint64_t k[n + 2][4]);   // k: p's limbs, then n0 = -p^-1 mod 2^29 and
                                                 // the mask 2^29 - 1, each in 4 lanes

    r = (a b + q p) / 2^(29 n) with limbs 0..n-2 below 2^29 and the top limb the carry out (r < 2p
    for a b < 2^(29 n) p). Limbs of a and b below 2^29. r may be a or b: a limb of r is written
    only after every column that reads the limbs of a and b at its index and above.

    Product scanning in blocks of W = 5 columns (finely integrated: column k's q_k = t_k n0 mod
    2^29 is found as soon as the column is complete, and q_k p is added to the columns above it).
    Per block the W column sums stay in ymm0-4; a limb a_i is loaded once per block into ymm8 and
    meets the limbs of b as memory operands, so a product costs one load; the q_i go to the stack.
    A column sums at most 2n products below 2^58 and a carry below 2^35: below 2^63 for n <= 14.
    Cost per 4 products: 2 n^2 + n vpmuludq (Fp, n = 14: 406; Fr, n = 9: 171), about as many
    vpaddq. On the AMD EPYC of family 25 model 17 (Zen 4), in a loop of independent products:
    W = 5 81-85 cycles a product (Fp), W = 6 86-89, W = 7 86-89, W = 8 87; two products
    interleaved (W = 3 each) 70-95 cycles, no better; C++ intrinsics for the same schedule
    (register allocation left to the compiler) 113 cycles with GCC 12, 85-92 with clang 14; the
    scalar mulx/adcx/adox product 118-122 cycles there."""
    W = 5
    body = [f"    vmovdqu ymm14, YMMWORD PTR [rcx+{32 * n}]\n    vmovdqu ymm15, YMMWORD PTR [rcx+{32 * (n + 1)}]"]
    regs = {"acc": [f"ymm{i}" for i in range(W)], "a": "ymm8", "q": "ymm9", "tmp": "ymm10", "carry": "ymm13"}
    base = {"r": "rdi", "a": "rsi", "b": "rdx", "p": "rcx", "q": "rsp", "q_off": 0}
    body += avx2_mul_body(n, W, regs, base, "ymm14", "ymm15")
    return avx2_frame(name, 1, n, body)


def gen_avx2_mul2(n, name):
    """Two independent 4-lane products of gen_avx2_mul, their instructions interleaved one for one
    so that each product's chain through q_k (a product, a mask, a product and a shift a column)
    overlaps the other's:

        void NAME(uint64_t r1[n][4], const uint64_t a1[n][4], const uint64_t b1[n][4],
                  uint64_t r2[n][4], const uint64_t a2[n][4], const uint64_t b2[n][4],
                  const uint64_t k[n + 2][4]);

    r1 = (a1 b1 + q p) / 2^(29 n) and r2 likewise, as gen_avx2_mul; r1 may be a1 or b1 and r2 a2 or
    b2, no other overlap. Blocks of W = 4 columns each (8 accumulators), n0 and the mask read from
    memory: the 16 ymm registers hold both products."""
    W = 4
    load_k = "    mov rax, QWORD PTR [rbp+16]"
    r1 = {"acc": [f"ymm{i}" for i in range(W)], "a": "ymm8", "q": "ymm9", "tmp": "ymm10", "carry": "ymm12"}
    r2 = {"acc": [f"ymm{i}" for i in range(4, 4 + W)], "a": "ymm11", "q": "ymm13", "tmp": "ymm14", "carry": "ymm15"}
    b1 = {"r": "rdi", "a": "rsi", "b": "rdx", "p": "rax", "q": "rsp", "q_off": 0}
    b2 = {"r": "rcx", "a": "r8", "b": "r9", "p": "rax", "q": "rsp", "q_off": 32 * n}
    n0, mask = f"YMMWORD PTR [rax+{32 * n}]", f"YMMWORD PTR [rax+{32 * (n + 1)}]"
    x, y = avx2_mul_body(n, W, r1, b1, n0, mask), avx2_mul_body(n, W, r2, b2, n0, mask)
    assert len(x) == len(y)
    body = [line for pair in zip(x, y) for line in pair]
    return avx2_frame(name, 2, n, body, load_k)


GENERATED = ("mont_mul_x86_64.S", "fp2_x86_64.S", "mont_mul_x86_64_inline.hpp", "mont_mul_avx2_x86_64.S")


def check(srcdir):
    """--check DIR: generate into a temporary directory and compare with DIR's files; exit 1
    naming each file that differs (a hand edit the generator does not make)."""
    import filecmp
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        main_into(tmp)
        stale = [f for f in GENERATED if not filecmp.cmp(os.path.join(tmp, f), os.path.join(srcdir, f), shallow=False)]
    for f in stale:
        print(f"{os.path.join(srcdir, f)} differs from what scripts/gen_mont_asm.py generates: "
              "edit the generator and run it (python3 scripts/gen_mont_asm.py lib/ff)", file=sys.stderr)
    return 1 if stale else 0


def main():
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    main_into(sys.argv[1] if len(sys.argv) > 1 else "lib/ff")


def main_into(outdir):
    with open(os.path.join(outdir, "mont_mul_x86_64.S"), "w") as f:
        f.write("# Generated by scripts/gen_mont_asm.py; do not edit by hand.\n")
        f.write("# Montgomery multiplication for x86-64 with BMI2 (mulx) and ADX (adcx/adox).\n")
        f.write(".intel_syntax noprefix\n.text\n")
        f.write(gen_function(6) + "\n\n")
        f.write(gen_function(6, lazy=True) + "\n\n")
        f.write(gen_square_function() + "\n\n")
        f.write(gen_square_function(lazy=True) + "\n\n")
        f.write(gen_butterflies() + "\n\n")
        f.write(gen_butterflies(pdep=True) + "\n\n")
        f.write('.section .note.GNU-stack,"",@progbits\n')
    with open(os.path.join(outdir, "fp2_x86_64.S"), "w") as f:
        f.write("# Generated by scripts/gen_mont_asm.py; do not edit by hand.\n")
        f.write("# Fp2 multiplication and squaring for BLS12-381 with lazy reduction (mulx/adcx/adox).\n")
        f.write(".intel_syntax noprefix\n")
        f.write(gen_fp2() + "\n")
        f.write('.section .note.GNU-stack,"",@progbits\n')
    with open(os.path.join(outdir, "mont_mul_avx2_x86_64.S"), "w") as f:
        f.write("# Generated by scripts/gen_mont_asm.py; do not edit by hand.\n")
        f.write("# 4-lane Montgomery products in radix 2^29 with AVX2 (vpmuludq), see gen_avx2_mul.\n")
        f.write(".intel_syntax noprefix\n.text\n")
        f.write(gen_avx2_mul(14, "c2lab_mont_mul_avx2x4_14") + "\n\n")
        f.write(gen_avx2_mul(9, "c2lab_mont_mul_avx2x4_9") + "\n\n")
        f.write(gen_avx2_mul2(14, "c2lab_mont_mul2_avx2x4_14") + "\n\n")
        f.write(gen_avx2_mul2(9, "c2lab_mont_mul2_avx2x4_9") + "\n\n")
        f.write('.section .note.GNU-stack,"",@progbits\n')
    with open(os.path.join(outdir, "mont_mul_x86_64_inline.hpp"), "w") as f:
        text = gen_inline(4)
        tail = "}  // namespace c2lab::ff::detail\n"
        extra = ["// (a + b) mod p and (a - b) mod p for a, b < p < 2^(64N-1); need BMI2 and ADX.", ""]
        for n in (4, 6):
            extra += gen_add_sub(n)
        extra += gen_lazy_add_sub(6)
        extra += gen_mul_add_inline(4)
        extra += gen_wide_add_sub()
        f.write(text.replace(tail, "\n".join(extra) + tail))


if __name__ == "__main__":
    main()
