#pragma once
// The ckptx command framework: each subcommand lives in its own file and registers
// itself with a CommandRegistration. Exit codes: 0 ok, 1 invalid input, 2 usage.
#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckptx {

enum ExitCode { Ok = 0, InvalidInput = 1, Usage = 2 };

// A usage error: wrong or missing arguments (exit code 2).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Args {
public:
    // `valueOptions` take a value (--solver NAME, -o FILE); `flags` take none (--json).
    Args(const std::vector<std::string>& argv, const std::set<std::string>& valueOptions,
         const std::set<std::string>& flags);
    bool flag(const std::string& name) const { return m_flags.count(name) > 0; }
    std::optional<std::string> option(const std::string& name) const;
    // Every value of an option given several times (--option a=1 --option b=2), in order.
    std::vector<std::string> optionValues(const std::string& name) const;
    std::string requireOption(const std::string& name) const;
    const std::vector<std::string>& positional() const { return m_positional; }
    // Exactly `count` positional arguments, named for the usage message.
    void expectPositional(const std::vector<std::string>& names) const;

private:
    std::vector<std::string> m_positional;
    std::set<std::string> m_flags;
    std::map<std::string, std::string> m_options;
    std::multimap<std::string, std::string> m_allOptions;
};

struct Command {
    std::string name;
    std::string synopsis;  // "info GRAPH [--json]"
    std::string summary;
    int (*run)(const std::vector<std::string>& args);
};

std::map<std::string, Command>& commandRegistry();

struct CommandRegistration {
    explicit CommandRegistration(Command command);
};

// Prints one JSON object on stdout (the --json contract).
void printJson(const nlohmann::json& object);
// One-line error on stderr, prefixed with the program name ("ckptx: ").
void printError(const std::string& message);

// The whole main(): runs the registered command named by argv[1] and maps exceptions to exit
// codes. `program` names the executable in usage and error lines (ckptx, ckptx-torch).
int dispatch(const std::string& program, int argc, char** argv);

}  // namespace ckptx
