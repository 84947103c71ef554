#pragma once
// The solver options of a command line: every --option KEY=VALUE (solve, max-batch).
#include "Cli.h"

#include "solvers/Solver.h"

namespace ckptx {

inline ckpt::SolverOptions solverOptions(const Args& args)
{
    ckpt::SolverOptions options;
    for (const std::string& kv : args.optionValues("--option")) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--option takes KEY=VALUE, got \"" + kv + "\"");
        options.values[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return options;
}

}  // namespace ckptx
