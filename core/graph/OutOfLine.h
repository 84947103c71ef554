#pragma once
// A value kept on the heap and allocated only when first written: a vector of records whose
// optional part most records leave at its default pays one pointer for it, not its size.
// Reads (`->`, `*`) see a default T when nothing was written; write() allocates. Copies are deep
// and equality compares values, so a record behaves as if it held the T inline.
#include <memory>

namespace ckpt {

template <class T>
class OutOfLine {
public:
    OutOfLine() = default;
    OutOfLine(const OutOfLine& other) : m_value(other.m_value ? std::make_unique<T>(*other.m_value) : nullptr) {}
    OutOfLine(OutOfLine&&) noexcept = default;
    OutOfLine& operator=(const OutOfLine& other)
    {
        if (this != &other)
            m_value = other.m_value ? std::make_unique<T>(*other.m_value) : nullptr;
        return *this;
    }
    OutOfLine& operator=(OutOfLine&&) noexcept = default;
    // Stores `value` unless it is the default, which needs no allocation.
    OutOfLine& operator=(T value)
    {
        m_value = value == defaultValue() ? nullptr : std::make_unique<T>(std::move(value));
        return *this;
    }

    const T& operator*() const { return m_value ? *m_value : defaultValue(); }
    const T* operator->() const { return &**this; }
    T& write()
    {
        if (!m_value)
            m_value = std::make_unique<T>();
        return *m_value;
    }
    // Whether anything was written: what scales or rewrites the value in place can skip the rest.
    bool written() const { return m_value != nullptr; }
    friend bool operator==(const OutOfLine& a, const OutOfLine& b) { return *a == *b; }

private:
    static const T& defaultValue()
    {
        static const T value{};
        return value;
    }

    std::unique_ptr<T> m_value;
};

}  // namespace ckpt
