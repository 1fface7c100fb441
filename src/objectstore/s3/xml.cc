#include "objectstore/s3/xml.h"

#include <algorithm>
#include <cstdint>
#include <utility>

#include "common/hex.h"
#include "common/utf8.h"

namespace tarn::s3 {

const XmlNode* XmlNode::Child(std::string_view child_name) const {
  for (const XmlNode& c : children) {
    if (c.name == child_name) return &c;
  }
  return nullptr;
}

std::string_view XmlNode::ChildText(std::string_view child_name) const {
  const XmlNode* c = Child(child_name);
  return c ? std::string_view(c->text) : std::string_view();
}

std::string XmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

constexpr size_t kMaxDepth = 256;

class Parser {
 public:
  Parser(std::string_view in, const XmlLimits& limits) : in_(in), limits_(limits) {}

  Result<XmlNode> Parse() {
    if (in_.size() > limits_.max_input_bytes) {
      return Status::Corruption("XML document of " + std::to_string(in_.size()) +
                                " bytes is over the limit");
    }
    if (in_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    TARN_RETURN_NOT_OK(SkipMisc());
    if (pos_ >= in_.size() || in_[pos_] != '<') return Error("expected the root element");
    ++pos_;
    XmlNode root;
    std::string root_qname;
    bool self_closing = false;
    TARN_RETURN_NOT_OK(StartTag(&root, &root_qname, &self_closing));
    if (!self_closing) TARN_RETURN_NOT_OK(Content(&root, std::move(root_qname)));
    TARN_RETURN_NOT_OK(SkipMisc());
    if (pos_ != in_.size()) return Error("content after the root element");
    return root;
  }

 private:
  Status Error(std::string_view what) const {
    return Status::Corruption("malformed XML at byte " + std::to_string(pos_) + ": " +
                              std::string(what));
  }

  bool At(std::string_view s) const { return in_.compare(pos_, s.size(), s) == 0; }

  // Skips to just after `end`; an error if it never comes.
  Status SkipPast(std::string_view end, std::string_view what) {
    size_t e = in_.find(end, pos_);
    if (e == std::string_view::npos) return Error(std::string("unterminated ") + std::string(what));
    pos_ = e + end.size();
    return Status::OK();
  }

  // Whitespace, comments and processing instructions outside the root element.
  Status SkipMisc() {
    while (true) {
      while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
      if (At("<?")) {
        TARN_RETURN_NOT_OK(SkipPast("?>", "processing instruction"));
      } else if (At("<!--")) {
        TARN_RETURN_NOT_OK(SkipPast("-->", "comment"));
      } else if (At("<!")) {
        return Error("DOCTYPE and other declarations are not accepted");
      } else {
        return Status::OK();
      }
    }
  }

  // After '<': the name, the attributes, and '>' or '/>'.
  Status StartTag(XmlNode* node, std::string* qname, bool* self_closing) {
    if (++nodes_ > limits_.max_nodes) return Error("too many elements");
    size_t start = pos_;
    while (pos_ < in_.size() && !IsSpace(in_[pos_]) && in_[pos_] != '>' && in_[pos_] != '/' &&
           in_[pos_] != '<' && in_[pos_] != '=' && in_[pos_] != '"' && in_[pos_] != '\'') {
      ++pos_;
    }
    if (pos_ == start) return Error("element without a name");
    *qname = std::string(in_.substr(start, pos_ - start));
    size_t colon = qname->find(':');
    node->name = colon == std::string::npos ? *qname : qname->substr(colon + 1);
    while (true) {
      while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
      if (pos_ >= in_.size()) return Error("unterminated start tag");
      char c = in_[pos_];
      if (c == '>') {
        ++pos_;
        *self_closing = false;
        return Status::OK();
      }
      if (c == '/') {
        if (!At("/>")) return Error("'/' in a start tag");
        pos_ += 2;
        *self_closing = true;
        return Status::OK();
      }
      // An attribute: name = "value" (dropped).
      size_t name_start = pos_;
      while (pos_ < in_.size() && !IsSpace(in_[pos_]) && in_[pos_] != '=' && in_[pos_] != '>' &&
             in_[pos_] != '/' && in_[pos_] != '<' && in_[pos_] != '"' && in_[pos_] != '\'') {
        ++pos_;
      }
      if (pos_ == name_start) return Error("bad attribute");
      while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
      if (pos_ >= in_.size() || in_[pos_] != '=') return Error("attribute without a value");
      ++pos_;
      while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
      if (pos_ >= in_.size() || (in_[pos_] != '"' && in_[pos_] != '\'')) {
        return Error("unquoted attribute value");
      }
      char quote = in_[pos_++];
      size_t end = in_.find(quote, pos_);
      if (end == std::string_view::npos) return Error("unterminated attribute value");
      if (in_.substr(pos_, end - pos_).find('<') != std::string_view::npos) {
        return Error("'<' in an attribute value");
      }
      pos_ = end + 1;
    }
  }

  // Character data up to the next '<', entities decoded, appended to out.
  Status Text(std::string* out) {
    while (pos_ < in_.size() && in_[pos_] != '<') {
      char c = in_[pos_];
      if (c != '&') {
        size_t next = pos_;
        while (next < in_.size() && in_[next] != '<' && in_[next] != '&') ++next;
        out->append(in_.data() + pos_, next - pos_);
        pos_ = next;
        continue;
      }
      size_t semi = in_.find(';', pos_);
      if (semi == std::string_view::npos || semi - pos_ > 12) return Error("bad entity");
      std::string_view ent = in_.substr(pos_ + 1, semi - pos_ - 1);
      if (ent == "lt") {
        out->push_back('<');
      } else if (ent == "gt") {
        out->push_back('>');
      } else if (ent == "amp") {
        out->push_back('&');
      } else if (ent == "quot") {
        out->push_back('"');
      } else if (ent == "apos") {
        out->push_back('\'');
      } else if (ent.size() >= 2 && ent[0] == '#') {
        bool hex = ent[1] == 'x';
        std::string_view digits = ent.substr(hex ? 2 : 1);
        if (digits.empty()) return Error("empty character reference");
        uint32_t cp = 0;
        for (char d : digits) {
          const int v = hex ? HexValue(d) : (d >= '0' && d <= '9' ? d - '0' : -1);
          if (v < 0) return Error("bad character reference");
          cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(v);
          if (cp > 0x10FFFF) return Error("character reference out of range");
        }
        if (cp == 0 || (cp >= 0xD800 && cp <= 0xDFFF)) return Error("invalid character reference");
        AppendUtf8(cp, out);
      } else {
        return Error("unknown entity");
      }
      pos_ = semi + 1;
    }
    return Status::OK();
  }

  // The content of `root` (whose start tag was read) up to and including its end tag,
  // iteratively: the stack holds the open elements (pointers stay valid because only the
  // innermost element gains children).
  Status Content(XmlNode* root, std::string root_qname) {
    std::vector<std::pair<XmlNode*, std::string>> stack;
    stack.emplace_back(root, std::move(root_qname));
    while (!stack.empty()) {
      if (pos_ >= in_.size()) return Error("unexpected end of document");
      XmlNode* top = stack.back().first;
      if (in_[pos_] != '<') {
        TARN_RETURN_NOT_OK(Text(&top->text));
        continue;
      }
      if (At("</")) {
        pos_ += 2;
        size_t start = pos_;
        while (pos_ < in_.size() && in_[pos_] != '>' && !IsSpace(in_[pos_])) ++pos_;
        std::string_view qname = in_.substr(start, pos_ - start);
        while (pos_ < in_.size() && IsSpace(in_[pos_])) ++pos_;
        if (pos_ >= in_.size() || in_[pos_] != '>') return Error("unterminated end tag");
        if (qname != stack.back().second) return Error("mismatched end tag");
        ++pos_;
        stack.pop_back();
      } else if (At("<!--")) {
        TARN_RETURN_NOT_OK(SkipPast("-->", "comment"));
      } else if (At("<![CDATA[")) {
        pos_ += 9;
        size_t end = in_.find("]]>", pos_);
        if (end == std::string_view::npos) return Error("unterminated CDATA section");
        top->text.append(in_.data() + pos_, end - pos_);
        pos_ = end + 3;
      } else if (At("<?")) {
        TARN_RETURN_NOT_OK(SkipPast("?>", "processing instruction"));
      } else if (At("<!")) {
        return Error("declaration inside an element");
      } else {
        if (stack.size() >= std::min<size_t>(limits_.max_depth, kMaxDepth)) {
          return Error("elements nested too deeply");
        }
        ++pos_;
        top->children.emplace_back();
        XmlNode* child = &top->children.back();
        std::string qname;
        bool self_closing = false;
        TARN_RETURN_NOT_OK(StartTag(child, &qname, &self_closing));
        if (!self_closing) stack.emplace_back(child, std::move(qname));
      }
    }
    return Status::OK();
  }

  std::string_view in_;
  const XmlLimits& limits_;
  size_t pos_ = 0;
  size_t nodes_ = 0;
};

}  // namespace

Result<XmlNode> ParseXml(std::string_view input, const XmlLimits& limits) {
  Parser parser(input, limits);
  return parser.Parse();
}

}  // namespace tarn::s3
