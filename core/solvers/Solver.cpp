#include "solvers/Solver.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ckpt {

std::int64_t SolverOptions::integer(const std::string& key, std::int64_t fallback) const
{
    auto it = values.find(key);
    if (it == values.end())
        return fallback;
    std::int64_t out = 0;
    const std::string& s = it->second;
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc() || ptr != s.data() + s.size())
        throw SolverError("option " + key + " must be an integer, got \"" + s + "\"");
    return out;
}

double SolverOptions::number(const std::string& key, double fallback) const
{
    auto it = values.find(key);
    if (it == values.end())
        return fallback;
    try {
        std::size_t used = 0;
        double d = std::stod(it->second, &used);
        if (used == it->second.size() && std::isfinite(d))
            return d;
    } catch (const std::exception&) {
    }
    throw SolverError("option " + key + " must be a number, got \"" + it->second + "\"");
}

std::string SolverOptions::text(const std::string& key, const std::string& fallback) const
{
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
}

void SolverOptions::checkCancelled() const
{
    if (cancel && cancel->load(std::memory_order_relaxed))
        throw SolverCancelled();
}

void SolverOptions::report(double fraction) const
{
    if (progress)
        progress(fraction);
}

void checkOptions(const Solver& solver, const SolverOptions& options)
{
    const std::vector<OptionSpec> specs = solver.options();
    for (const auto& option : options.values) {
        const std::string& key = option.first;
        const std::string& value = option.second;
        const auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == key; });
        if (spec == specs.end()) {
            std::string known;
            for (const OptionSpec& s : specs)
                known += (known.empty() ? "" : ", ") + s.name;
            throw SolverError("unknown option \"" + key + "\" for solver " + solver.name() +
                              (known.empty() ? " (it takes no options)" : " (known: " + known + ")"));
        }
        if (key == kTimeLimitOption && !(options.number(key, 0) > 0))
            throw SolverError("option " + key + " must be a positive number of seconds, got \"" + value + "\"");
    }
}

Plan makePlan(const Graph& graph, const Solver& solver, const SolverOptions& options,
              std::vector<VertexIndex> checkpoints)
{
    Plan plan;
    plan.solver = solver.name();
    for (const OptionSpec& spec : solver.options())
        plan.options[spec.name] = options.text(spec.name, spec.defaultValue);
    plan.evaluation = evaluate(graph, std::move(checkpoints));
    return plan;
}

}  // namespace ckpt
