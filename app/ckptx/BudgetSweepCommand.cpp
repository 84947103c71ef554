// ckptx budget-sweep: compute overhead versus memory budget per solver (Checkmate Fig. 4).
#include "Cli.h"

#include "io/GraphJson.h"
#include "solvers/BudgetSweep.h"

#include <charconv>
#include <iostream>
#include <sstream>

namespace ckptx {

namespace {

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty())
            out.push_back(item);
    return out;
}

double positiveNumber(const std::string& option, const std::string& text)
{
    double value = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || !(value > 0))
        throw UsageError(option + " needs a positive number, got \"" + text + "\"");
    return value;
}

nlohmann::json toJson(const ckpt::BudgetSweepResult& r)
{
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : r.rows) {
        nlohmann::json j{{"solver", row.solver}, {"status", row.status}, {"seconds", row.seconds}};
        j["budget"] = row.budget ? nlohmann::json(*row.budget) : nlohmann::json(nullptr);
        if (row.hasPoint()) {
            j["peak_bytes"] = row.peakBytes;
            j["compute"] = row.cost;
            j["overhead"] = row.overhead;
            j["cost_model"] = row.costModel;
        } else {
            j["error"] = row.error;
        }
        rows.push_back(j);
    }
    return {{"graph", r.graph},
            {"training_nodes", r.trainingNodes},
            {"backward_derived", r.derivedBackward},
            {"fixed_bytes", r.fixedBytes},
            {"baseline_compute", r.baselineCost},
            {"forward_compute", r.forwardCost},
            {"baseline_peak_bytes", r.baselinePeak},
            {"lower_bound_bytes", r.lowerBound},
            {"rows", rows}};
}

int runBudgetSweep(const std::vector<std::string>& argv)
{
    Args args(argv, {"--solvers", "--points", "--time-limit"}, {"--json", "--csv"});
    args.expectPositional({"GRAPH"});
    if (args.flag("--json") && args.flag("--csv"))
        throw UsageError("choose one of --json and --csv");
    ckpt::BudgetSweepSettings settings;
    if (auto s = args.option("--solvers"))
        settings.solvers = splitList(*s);
    if (settings.solvers.empty())
        throw UsageError("--solvers needs at least one solver name");
    if (auto p = args.option("--points"))
        settings.points = static_cast<int>(positiveNumber("--points", *p));
    if (auto t = args.option("--time-limit"))
        settings.timeLimit = positiveNumber("--time-limit", *t);
    const auto graph = ckpt::readGraphFile(args.positional()[0]);
    const auto result = ckpt::budgetSweep(graph, settings);

    if (args.flag("--json")) {
        printJson(toJson(result));
        return Ok;
    }
    if (args.flag("--csv")) {
        std::cout << "solver,budget_bytes,peak_bytes,compute,overhead,cost_model,status,seconds,error\n";
        for (const auto& row : result.rows) {
            std::string error = row.error;
            for (char& c : error)
                if (c == ',' || c == '"')
                    c = ';';
            std::cout << row.solver << ',' << (row.budget ? std::to_string(*row.budget) : "") << ','
                      << (row.hasPoint() ? std::to_string(row.peakBytes) : "") << ','
                      << (row.hasPoint() ? std::to_string(row.cost) : "") << ','
                      << (row.hasPoint() ? std::to_string(row.overhead) : "") << ',' << row.costModel << ','
                      << row.status << ','
                      << row.seconds << ',' << error << '\n';
        }
        return Ok;
    }
    std::cout << result.graph << ": " << result.trainingNodes << " training nodes"
              << (result.derivedBackward ? " (backward nodes derived)" : "") << ", fixed overhead "
              << result.fixedBytes << " bytes, checkpoint-all peak " << result.baselinePeak << " bytes\n"
              << "overhead: checkpoint plans (forward + re-forwarded segments) / forward; checkmate-milp schedules "
                 "their stage replay / checkpoint-all's\n";
    for (const auto& row : result.rows) {
        std::cout << "  " << row.solver;
        if (row.budget)
            std::cout << " @ " << *row.budget << " B";
        if (row.hasPoint())
            std::cout << ": peak " << row.peakBytes << " B, overhead x" << row.overhead << " (" << row.costModel << ", "
                      << row.status << ")\n";
        else
            std::cout << ": " << row.status << " - " << row.error << "\n";
    }
    return Ok;
}

const CommandRegistration sweep{{"budget-sweep",
                                 "budget-sweep GRAPH [--solvers a,b,...] [--points N] [--time-limit S] [--json|--csv]",
                                 "compute overhead vs memory budget per solver (Checkmate Fig. 4)", &runBudgetSweep}};

}  // namespace

}  // namespace ckptx
