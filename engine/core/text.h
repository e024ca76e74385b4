#pragma once
// Small string helpers the option and spec parsers share.

#include <sstream>
#include <string>
#include <vector>

namespace ql {

// "a,b,,c" -> {"a", "b", "", "c"}; a trailing separator adds nothing.
inline std::vector<std::string> splitText(const std::string &text, char separator) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(text);
    while (std::getline(in, part, separator)) parts.push_back(part);
    return parts;
}

// Without leading and trailing characters of `strip` (spaces and tabs by default).
inline std::string trimmedText(const std::string &text, const char *strip = " \t") {
    const auto first = text.find_first_not_of(strip);
    const auto last = text.find_last_not_of(strip);
    return first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
}

}  // namespace ql
