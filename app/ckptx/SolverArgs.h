#pragma once
// The solver options of a command line: every --option KEY=VALUE (solve, max-batch).
#include "Cli.h"

#include "solvers/Solver.h"
#include "solvers/SolverRegistry.h"

namespace ckptx {

// The --option values; with `solver` they are checked against its options (an unknown key is
// refused with the list of known ones).
inline ckpt::SolverOptions solverOptions(const Args& args, const std::string& solver = {})
{
    ckpt::SolverOptions options;
    for (const std::string& kv : args.optionValues("--option")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--option takes KEY=VALUE, got \"" + kv + "\"");
        options.values[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (const ckpt::Solver* known = solver.empty() ? nullptr : ckpt::findSolver(solver))
        ckpt::checkOptions(*known, options);
    return options;
}

}  // namespace ckptx
