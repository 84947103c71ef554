#pragma once
#include <stdexcept>
#include <string>

namespace ckpt {

// Invalid input. `where` is a JSON pointer ("/vertices/17/bytes") when the problem
// belongs to one place of the input, empty otherwise; `file` is filled in by readers.
class GraphError : public std::runtime_error {
public:
    explicit GraphError(std::string problem, std::string where = {}, std::string file = {});
    const std::string& problem() const { return m_problem; }
    const std::string& where() const { return m_where; }
    const std::string& file() const { return m_file; }
    GraphError inFile(const std::string& file) const { return GraphError(m_problem, m_where, file); }

private:
    static std::string format(const std::string& problem, const std::string& where, const std::string& file);
    std::string m_problem, m_where, m_file;
};

}  // namespace ckpt
