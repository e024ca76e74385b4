#pragma once
// Errors a user can cause travel as values, never as exceptions, across the engine boundary.

#include <string>
#include <utility>
#include <variant>

namespace ql {

enum class ErrorKind {
    None,
    BadInput,     // unreadable file, wrong shape or dtype, bad usage
    Unsupported,  // a model the engine cannot run: unsupported op, attribute or type
    Cancelled,    // the progress callback asked to stop
    Io,           // a file could not be written (full disk, no folder, no permission)
    Internal,     // a library failed in a way the user did not cause
};

class Status {
public:
    Status() = default;
    static Status ok() { return Status(); }
    static Status error(ErrorKind kind, std::string message) { return Status(kind, std::move(message)); }
    static Status badInput(std::string message) { return error(ErrorKind::BadInput, std::move(message)); }
    static Status unsupported(std::string message) {
        return error(ErrorKind::Unsupported, std::move(message));
    }
    static Status io(std::string message) { return error(ErrorKind::Io, std::move(message)); }
    static Status internal(std::string message) { return error(ErrorKind::Internal, std::move(message)); }

    bool isOk() const { return m_kind == ErrorKind::None; }
    explicit operator bool() const { return isOk(); }
    ErrorKind kind() const { return m_kind; }
    const std::string &message() const { return m_message; }

    // Prefixes the message with context, e.g. the node that failed.
    Status withContext(const std::string &context) const {
        if (isOk()) return *this;
        return Status(m_kind, context + ": " + m_message);
    }

private:
    Status(ErrorKind kind, std::string message) : m_kind(kind), m_message(std::move(message)) {}
    ErrorKind m_kind = ErrorKind::None;
    std::string m_message;
};

template <class T>
class Result {
public:
    Result(T value) : m_value(std::move(value)) {}
    Result(Status status) : m_value(std::move(status)) {}

    bool isOk() const { return std::holds_alternative<T>(m_value); }
    explicit operator bool() const { return isOk(); }
    const Status &status() const {
        static const Status okStatus;
        return isOk() ? okStatus : std::get<Status>(m_value);
    }
    T &value() { return std::get<T>(m_value); }
    const T &value() const { return std::get<T>(m_value); }
    T &operator*() { return value(); }
    T *operator->() { return &value(); }

private:
    std::variant<T, Status> m_value;
};

#define QL_RETURN_IF_ERROR(expr)               \
    do {                                       \
        ::ql::Status ql_status_ = (expr);      \
        if (!ql_status_.isOk()) return ql_status_; \
    } while (0)

}  // namespace ql
