// Escaping for the text reports c2lab writes (markdown tables, SVG and HTML), shared by the
// gate, the A/B runner and the batch timeline.
#pragma once

#include <string>

namespace c2lab {

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

}  // namespace c2lab
