#include "Cli.h"

#include "graph/GraphError.h"

#include <iostream>

namespace ckptx {

namespace {

std::string& programName()
{
    static std::string name = "ckptx";
    return name;
}

void printUsage(std::ostream& out)
{
    out << "usage: " << programName() << " COMMAND [ARGS] [--json]\n\ncommands:\n";
    for (const auto& [name, command] : commandRegistry())
        out << "  " << command.synopsis << "\n      " << command.summary << "\n";
    out << "\nexit codes: 0 ok, 1 invalid input, 2 usage\n";
}

}  // namespace

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
           const std::set<std::string>& flags)
{
    for (std::size_t i = 0; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a.size() > 1 && a[0] == '-') {
            std::string name = a, value;
            bool hasInlineValue = false;
            if (auto eq = a.find('='); eq != std::string::npos && a.rfind("--", 0) == 0) {
                name = a.substr(0, eq);
                value = a.substr(eq + 1);
                hasInlineValue = true;
            }
            if (flags.count(name)) {
                if (hasInlineValue)
                    throw UsageError("option " + name + " takes no value");
                m_flags.insert(name);
            } else if (valueOptions.count(name)) {
                if (!hasInlineValue) {
                    if (i + 1 >= argv.size())
                        throw UsageError("option " + name + " needs a value");
                    value = argv[++i];
                }
                m_options[name] = value;
                m_allOptions.emplace(name, value);
            } else {
                throw UsageError("unknown option " + name);
            }
        } else {
            m_positional.push_back(a);
        }
    }
}

std::optional<std::string> Args::option(const std::string& name) const
{
    auto it = m_options.find(name);
    if (it == m_options.end())
        return std::nullopt;
    return it->second;
}

std::vector<std::string> Args::optionValues(const std::string& name) const
{
    std::vector<std::string> out;
    for (auto [it, end] = m_allOptions.equal_range(name); it != end; ++it)
        out.push_back(it->second);
    return out;
}

std::string Args::requireOption(const std::string& name) const
{
    auto value = option(name);
    if (!value)
        throw UsageError("missing required option " + name);
    return *value;
}

void Args::expectPositional(const std::vector<std::string>& names) const
{
    if (m_positional.size() == names.size())
        return;
    std::string expected;
    for (const auto& n : names)
        expected += (expected.empty() ? "" : " ") + n;
    throw UsageError("expected " + std::to_string(names.size()) + " argument(s) (" + expected + "), got " +
                     std::to_string(m_positional.size()));
}

std::map<std::string, Command>& commandRegistry()
{
    static std::map<std::string, Command> registry;
    return registry;
}

CommandRegistration::CommandRegistration(Command command)
{
    commandRegistry().emplace(command.name, std::move(command));
}

void printJson(const nlohmann::json& object)
{
    std::cout << object.dump(2) << std::endl;
}

void printError(const std::string& message)
{
    std::cerr << programName() << ": " << message << std::endl;
}

int dispatch(const std::string& program, int argc, char** argv)
{
    programName() = program;
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
        printError("unknown command \"" + name + "\" (see " + program + " help)");
        return Usage;
    }
    args.erase(args.begin());
    try {
        return it->second.run(args);
    } catch (const UsageError& e) {
        printError(std::string(e.what()) + "\nusage: " + program + " " + it->second.synopsis);
        return Usage;
    } catch (const ckpt::GraphError& e) {
        printError(e.what());
        return InvalidInput;
    } catch (const std::exception& e) {
        printError(e.what());
        return InvalidInput;
    }
}

}  // namespace ckptx
