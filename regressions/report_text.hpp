// Escaping shared by the reports of the gate and the A/B runner.
#pragma once

#include <string>

namespace c2lab::regressions {

// A markdown table cell: '|' escaped.
inline std::string md_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

// Text and attribute values in SVG and HTML.
inline std::string xml_escape(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            default: out += c;
        }
    }
    return out;
}

}  // namespace c2lab::regressions
