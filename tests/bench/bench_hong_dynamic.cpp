// hong-dynamic (Hong et al. Alg. 6) on random chains of n = 10^3 .. 10^6 tensors: time per n and
// the least-squares slope of log(time) over log(n) (1 = linear). Alg. 5 (quadratic) alongside up
// to n = 10^4 for contrast. Usage: bench_hong_dynamic [max_n]
#include "solvers/HongDynamicQuadraticSolver.h"
#include "solvers/HongDynamicSolver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>

using namespace ckpt;

namespace {

CandidateChain randomChain(int n, std::mt19937_64& rng)
{
    CandidateChain chain;
    std::uniform_int_distribution<std::int64_t> bytes(1, 1 << 20);
    for (int i = 0; i < n; ++i) {
        chain.vertices.push_back(i);
        chain.bytes.push_back(bytes(rng));
        chain.gapBytes.push_back(0);
        chain.gapMax.push_back(0);
        chain.gapCompute.push_back(0);
    }
    return chain;
}

double medianMs(ChainSelection (*select)(const CandidateChain&, const SolverOptions&), const CandidateChain& chain,
                int reps, std::int64_t* work = nullptr)
{
    std::vector<double> ms;
    for (int r = 0; r < reps; ++r) {
        const auto start = std::chrono::steady_clock::now();
        const ChainSelection s = select(chain, {});
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        if (work)
            *work = s.work;
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
}

// Least-squares slope of ys over xs.
double slope(const std::vector<double>& xs, const std::vector<double>& ys)
{
    const double mx = std::accumulate(xs.begin(), xs.end(), 0.0) / xs.size();
    const double my = std::accumulate(ys.begin(), ys.end(), 0.0) / ys.size();
    double sxy = 0, sxx = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        sxy += (xs[i] - mx) * (ys[i] - my);
        sxx += (xs[i] - mx) * (xs[i] - mx);
    }
    return sxy / sxx;
}

}  // namespace

int main(int argc, char** argv)
{
    const int maxN = argc > 1 ? std::atoi(argv[1]) : 1000000;
    std::mt19937_64 rng(1);
    std::vector<double> xs, ys, ws;
    std::printf("%10s %12s %12s %12s\n", "n", "alg6_ms", "alg6_U/n", "alg5_ms");
    for (double e = 3; e <= std::log10(maxN) + 1e-9; e += 0.5) {
        const int n = static_cast<int>(std::lround(std::pow(10.0, e)));
        const CandidateChain chain = randomChain(n, rng);
        std::int64_t work = 0;
        const double linear = medianMs(&hongDynamicLinear, chain, 5, &work);
        xs.push_back(std::log(n));
        ys.push_back(std::log(linear));
        ws.push_back(std::log(static_cast<double>(work)));
        const double perN = static_cast<double>(work) / n;
        if (n <= 10000) {
            const double quadratic = medianMs(&hongDynamicQuadratic, chain, 3);
            if (hongDynamicQuadratic(chain).value != hongDynamicLinear(chain).value)
                return std::fprintf(stderr, "Alg. 5 and Alg. 6 disagree at n = %d\n", n), 1;
            std::printf("%10d %12.3f %12.2f %12.3f\n", n, linear, perN, quadratic);
        } else {
            std::printf("%10d %12.3f %12.2f %12s\n", n, linear, perN, "-");
        }
    }
    std::printf("slope of log(time) over log(n), Alg. 6: %.3f\n", slope(xs, ys));
    std::printf("slope of log(U evaluations) over log(n), Alg. 6: %.3f\n", slope(xs, ws));
    return 0;
}
