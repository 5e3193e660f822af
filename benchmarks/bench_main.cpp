#include "bench_main.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <optional>
#include <iostream>
#include <vector>

#include "core/cpu.hpp"
#include "core/error.hpp"
#include "porep/c1_json.hpp"

namespace c2lab::bench {

namespace {
options g_opts;
std::vector<void (*)()>& registrations() {
    static std::vector<void (*)()> r;
    return r;
}
}  // namespace

const options& opts() noexcept { return g_opts; }

bool selected(std::string_view flag, std::string_view variant) {
    for (const auto& [k, v] : g_opts.given)
        if (k == flag && v != variant) return false;
    return true;
}

std::vector<std::string> datasets_or(std::vector<std::string> defaults) {
    if (!g_opts.dataset.empty()) return {g_opts.dataset};
    return defaults;
}

int add_registration(void (*fn)()) {
    registrations().push_back(fn);
    return 0;
}

}  // namespace c2lab::bench

int main(int argc, char** argv) {
    using namespace c2lab;
    std::vector<std::string> settings;
    std::vector<char*> rest{argv[0]};
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto take = [&](const char* opt) -> std::optional<std::string> {
            const std::string o(opt);
            if (a == o) {
                if (i + 1 >= argc) {
                    std::cerr << argv[0] << ": " << o << " needs a value\n";
                    std::exit(2);
                }
                return std::string(argv[++i]);
            }
            if (a.rfind(o + "=", 0) == 0) return a.substr(o.size() + 1);
            return std::nullopt;
        };
        if (auto v = take("--flag")) {
            settings.push_back(*v);
        } else if (auto d = take("--dataset")) {
            bench::g_opts.dataset = *d;
        } else {
            if (a == "--help" || a == "-h")
                std::cout << "c2lab options (before or among Google Benchmark's):\n"
                             "  --flag name=variant   run only this variant of the flag's benchmarks (repeatable;\n"
                             "                        list: `c2lab flags`); recorded in the JSON context as flag.<name>\n"
                             "  --dataset NAME        C1 dataset of the PoRep stage benchmarks (datasets/manifest.json)\n\n";
            rest.push_back(argv[i]);
        }
    }
    try {
        auto all = pipeline::parse_all_flags(settings);
        bench::g_opts.flags = std::move(all.engine);
        bench::g_opts.test_flags = std::move(all.test);
    } catch (const error& e) {
        std::cerr << argv[0] << ": error: " << e.what() << "\n";
        return 2;
    }
    for (const std::string& s : settings) {  // a later setting of the same flag wins
        const auto eq = s.find('=');
        const std::string name = s.substr(0, eq), value = s.substr(eq + 1);
        auto& given = bench::g_opts.given;
        std::erase_if(given, [&](const auto& kv) { return kv.first == name; });
        given.emplace_back(name, value);
    }
    for (const auto& [name, value] : bench::g_opts.given) benchmark::AddCustomContext("flag." + name, value);
    if (!bench::g_opts.dataset.empty()) benchmark::AddCustomContext("dataset", bench::g_opts.dataset);
    benchmark::AddCustomContext("cpu_path", c2lab::cpu::arith_path());  // which arithmetic ran (ifma, adx, portable)
    benchmark::AddCustomContext("simdjson_kernel", c2lab::porep::simdjson_kernel());  // the C1 DOM parser's
    try {
        for (auto fn : bench::registrations()) fn();
    } catch (const error& e) {
        std::cerr << argv[0] << ": error: " << e.what() << "\n";
        return 2;
    }
    int n = static_cast<int>(rest.size());
    benchmark::Initialize(&n, rest.data());
    if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
