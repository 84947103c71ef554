// ckptx: the command-line face of the core. See `ckptx help`.
#include "Cli.h"

#include "graph/GraphError.h"

#include <iostream>

using namespace ckptx;

namespace {

void printUsage(std::ostream& out)
{
    out << "usage: ckptx COMMAND [ARGS] [--json]\n\ncommands:\n";
    for (const auto& [name, command] : commandRegistry())
        out << "  " << command.synopsis << "\n      " << command.summary << "\n";
    out << "\nexit codes: 0 ok, 1 invalid input, 2 usage\n";
}

}  // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) {
        printUsage(std::cerr);
        return Usage;
    }
    const std::string name = args.front();
    if (name == "help" || name == "--help" || name == "-h") {
        printUsage(std::cout);
        return Ok;
    }
    auto it = commandRegistry().find(name);
    if (it == commandRegistry().end()) {
        printError("unknown command \"" + name + "\" (see ckptx help)");
        return Usage;
    }
    args.erase(args.begin());
    try {
        return it->second.run(args);
    } catch (const UsageError& e) {
        printError(std::string(e.what()) + "\nusage: ckptx " + it->second.synopsis);
        return Usage;
    } catch (const ckpt::GraphError& e) {
        printError(e.what());
        return InvalidInput;
    } catch (const std::exception& e) {
        printError(e.what());
        return InvalidInput;
    }
}
