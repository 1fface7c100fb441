#include "table/predicate.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>

#include "table/error_codes.h"
#include "table/field_path.h"
#include "table/ordered_key.h"
#include "table/schema_json.h"
#include "types/iceberg.h"
#include "types/value_text.h"

namespace tarn {

namespace {

// ---- Printing helpers ----

std::string QuoteName(const std::string& name) {
  return QuoteColumnName(name, {"AND", "OR", "NOT", "IN", "IS", "NULL", "TRUE", "FALSE"});
}

// A leaf's column as the parser reads it back: `col`, `"p"."user".id`.
template <typename Node>
std::string ColumnText(const Node& p) {
  std::string out = QuoteName(p.column);
  for (const std::string& m : p.members) out += "." + QuoteName(m);
  return out;
}

std::string QuoteString(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  return out + "'";
}

const char* OpText(PredicateOp op) {
  switch (op) {
    case PredicateOp::kEq:
      return "=";
    case PredicateOp::kNe:
      return "<>";
    case PredicateOp::kLt:
      return "<";
    case PredicateOp::kLe:
      return "<=";
    case PredicateOp::kGt:
      return ">";
    case PredicateOp::kGe:
      return ">=";
    case PredicateOp::kIn:
      return "IN";
    case PredicateOp::kNotIn:
      return "NOT IN";
    default:
      return "?";
  }
}

PredicateOp Flip(PredicateOp op) {  // a op b  <=>  b Flip(op) a
  switch (op) {
    case PredicateOp::kLt:
      return PredicateOp::kGt;
    case PredicateOp::kLe:
      return PredicateOp::kGe;
    case PredicateOp::kGt:
      return PredicateOp::kLt;
    case PredicateOp::kGe:
      return PredicateOp::kLe;
    default:
      return op;
  }
}

template <typename Node, typename LeafText>
std::string TreeText(const Node& p, LeafText leaf) {
  switch (p.op) {
    case PredicateOp::kTrue:
      return "TRUE";
    case PredicateOp::kFalse:
      return "FALSE";
    case PredicateOp::kAnd:
    case PredicateOp::kOr: {
      std::string out = "(";
      for (size_t i = 0; i < p.children.size(); ++i) {
        if (i) out += p.op == PredicateOp::kAnd ? " AND " : " OR ";
        out += TreeText(p.children[i], leaf);
      }
      return out + ")";
    }
    case PredicateOp::kNot:
      return "(NOT " + (p.children.empty() ? std::string("TRUE") : TreeText(p.children[0], leaf)) +
             ")";
    case PredicateOp::kIsNull:
      return ColumnText(p) + " IS NULL";
    case PredicateOp::kIsNotNull:
      return ColumnText(p) + " IS NOT NULL";
    case PredicateOp::kIn:
    case PredicateOp::kNotIn: {
      std::string out = ColumnText(p) + " " + OpText(p.op) + " (";
      size_t n = leaf.count(p);
      for (size_t i = 0; i < n; ++i) {
        if (i) out += ", ";
        out += leaf.text(p, i);
      }
      return out + ")";
    }
    default:
      return ColumnText(p) + " " + OpText(p.op) + " " + leaf.text(p, 0);
  }
}

struct RawLeafText {
  size_t count(const Predicate& p) const { return p.literals.size(); }
  std::string text(const Predicate& p, size_t i) const {
    if (i >= p.literals.size()) return "NULL";
    const PredicateLiteral& l = p.literals[i];
    switch (l.kind) {
      case PredicateLiteral::Kind::kNumber:
        return l.text;
      case PredicateLiteral::Kind::kBoolean:
        return l.text == "true" ? "TRUE" : "FALSE";
      case PredicateLiteral::Kind::kString:
        return QuoteString(l.text);
    }
    return l.text;
  }
};

struct BoundLeafText {
  size_t count(const BoundPredicate& p) const { return p.literals ? p.literals->length : 0; }
  std::string text(const BoundPredicate& p, size_t i) const {
    if (!p.literals || static_cast<int64_t>(i) >= p.literals->length) return "NULL";
    std::string v = ValueText(*p.literals, static_cast<int64_t>(i));
    TypeId id = p.type.id();
    if (id == TypeId::kBoolean) return v == "true" ? "TRUE" : "FALSE";
    if (p.type.is_integer() || id == TypeId::kDecimal) return v;
    if (p.type.is_floating() && (std::isdigit(static_cast<unsigned char>(v.back())))) return v;
    return QuoteString(v);
  }
};

// ---- Tokenizer and parser ----

enum class Tok { kEnd, kIdent, kQuotedIdent, kString, kNumber, kOp, kLParen, kRParen, kComma, kDot };

struct Token {
  Tok kind = Tok::kEnd;
  std::string text;   // identifier/string/number text; operator spelling
  std::string upper;  // kIdent: upper-cased
  size_t pos = 0;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Result<Predicate> Run() {
    TARN_RETURN_NOT_OK(Tokenize());
    TARN_ASSIGN_OR_RETURN(Predicate p, ParseOr(0));
    if (Peek().kind != Tok::kEnd) return Error("unexpected " + Describe(Peek()), Peek().pos);
    return p;
  }

 private:
  static constexpr int kMaxDepth = 200;

  Status Error(std::string what, size_t pos) const {
    return Status::InvalidArgument("predicate: " + what + " at position " + std::to_string(pos));
  }
  static std::string Describe(const Token& t) {
    if (t.kind == Tok::kEnd) return "end of text";
    if (t.kind == Tok::kString) return "'" + t.text.substr(0, 40) + "'";
    return "\"" + t.text.substr(0, 40) + "\"";
  }

  Status Tokenize() {
    size_t i = 0;
    const size_t n = text_.size();
    while (true) {
      while (i < n && std::isspace(static_cast<unsigned char>(text_[i]))) ++i;
      Token t;
      t.pos = i;
      if (i >= n) {
        tokens_.push_back(t);
        return Status::OK();
      }
      char c = text_[i];
      if (c == '\'' || c == '"') {
        t.kind = c == '\'' ? Tok::kString : Tok::kQuotedIdent;
        ++i;
        bool closed = false;
        while (i < n) {
          if (text_[i] == c) {
            if (i + 1 < n && text_[i + 1] == c) {
              t.text.push_back(c);
              i += 2;
              continue;
            }
            ++i;
            closed = true;
            break;
          }
          t.text.push_back(text_[i++]);
        }
        if (!closed) {
          return Error(std::string("unterminated ") + (c == '\'' ? "string" : "quoted name"),
                       t.pos);
        }
      } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                 ((c == '-' || c == '+' || c == '.') && i + 1 < n &&
                  (std::isdigit(static_cast<unsigned char>(text_[i + 1])) ||
                   text_[i + 1] == '.'))) {
        t.kind = Tok::kNumber;
        size_t start = i;
        if (c == '-' || c == '+') ++i;
        while (i < n && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '.' ||
                         ((text_[i] == '-' || text_[i] == '+') &&
                          (text_[i - 1] == 'e' || text_[i - 1] == 'E')))) {
          ++i;
        }
        t.text = std::string(text_.substr(start, i - start));
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        t.kind = Tok::kIdent;
        size_t start = i;
        while (i < n && (std::isalnum(static_cast<unsigned char>(text_[i])) || text_[i] == '_' ||
                         text_[i] == '-')) {
          ++i;
        }
        t.text = std::string(text_.substr(start, i - start));
        t.upper = t.text;
        for (char& ch : t.upper)
          ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      } else if (c == '.') {
        t.kind = Tok::kDot;
        t.text = ".";
        ++i;
      } else if (c == '(' || c == ')' || c == ',') {
        t.kind = c == '(' ? Tok::kLParen : (c == ')' ? Tok::kRParen : Tok::kComma);
        t.text = std::string(1, c);
        ++i;
      } else if (c == '=' || c == '<' || c == '>' || c == '!') {
        t.kind = Tok::kOp;
        std::string_view two = text_.substr(i, 2);
        if (two == "<=" || two == ">=" || two == "<>" || two == "!=") {
          t.text = std::string(two);
          i += 2;
        } else if (c == '!') {
          return Error("unexpected '!'", i);
        } else {
          t.text = std::string(1, c);
          i += 1;
          if (c == '=' && i < n && text_[i] == '=') ++i;  // accept ==
        }
      } else {
        return Error(std::string("unexpected character '") + c + "'", i);
      }
      tokens_.push_back(std::move(t));
    }
  }

  const Token& Peek(size_t ahead = 0) const {
    size_t k = std::min(at_ + ahead, tokens_.size() - 1);
    return tokens_[k];
  }
  Token Next() {
    Token t = Peek();
    if (at_ < tokens_.size() - 1) ++at_;
    return t;
  }
  bool IsKeyword(const Token& t, const char* kw) const {
    return t.kind == Tok::kIdent && t.upper == kw;
  }

  Result<Predicate> ParseOr(int depth) {
    if (depth > kMaxDepth) return Error("nesting too deep", Peek().pos);
    TARN_ASSIGN_OR_RETURN(Predicate left, ParseAnd(depth));
    if (!IsKeyword(Peek(), "OR")) return left;
    Predicate p;
    p.op = PredicateOp::kOr;
    p.children.push_back(std::move(left));
    while (IsKeyword(Peek(), "OR")) {
      Next();
      TARN_ASSIGN_OR_RETURN(Predicate right, ParseAnd(depth));
      p.children.push_back(std::move(right));
    }
    return p;
  }

  Result<Predicate> ParseAnd(int depth) {
    TARN_ASSIGN_OR_RETURN(Predicate left, ParseNot(depth));
    if (!IsKeyword(Peek(), "AND")) return left;
    Predicate p;
    p.op = PredicateOp::kAnd;
    p.children.push_back(std::move(left));
    while (IsKeyword(Peek(), "AND")) {
      Next();
      TARN_ASSIGN_OR_RETURN(Predicate right, ParseNot(depth));
      p.children.push_back(std::move(right));
    }
    return p;
  }

  Result<Predicate> ParseNot(int depth) {
    if (depth > kMaxDepth) return Error("nesting too deep", Peek().pos);
    if (IsKeyword(Peek(), "NOT")) {
      Next();
      TARN_ASSIGN_OR_RETURN(Predicate inner, ParseNot(depth + 1));
      Predicate p;
      p.op = PredicateOp::kNot;
      p.children.push_back(std::move(inner));
      return p;
    }
    return ParsePrimary(depth);
  }

  bool IsLiteralToken(const Token& t) const {
    return t.kind == Tok::kString || t.kind == Tok::kNumber || IsKeyword(t, "TRUE") ||
           IsKeyword(t, "FALSE");
  }

  Result<PredicateLiteral> ParseLiteral() {
    Token t = Next();
    PredicateLiteral l;
    if (t.kind == Tok::kString) {
      l.kind = PredicateLiteral::Kind::kString;
    } else if (t.kind == Tok::kNumber) {
      l.kind = PredicateLiteral::Kind::kNumber;
    } else if (IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE")) {
      l.kind = PredicateLiteral::Kind::kBoolean;
      l.text = t.upper == "TRUE" ? "true" : "false";
      return l;
    } else if (IsKeyword(t, "NULL")) {
      return Error("NULL is not a value here (use IS NULL / IS NOT NULL)", t.pos);
    } else {
      return Error("expected a literal, found " + Describe(t), t.pos);
    }
    l.text = t.text;
    return l;
  }

  Result<Predicate> ParsePrimary(int depth) {
    const Token& t = Peek();
    if (t.kind == Tok::kLParen) {
      Next();
      TARN_ASSIGN_OR_RETURN(Predicate inner, ParseOr(depth + 1));
      if (Peek().kind != Tok::kRParen)
        return Error("expected ')', found " + Describe(Peek()), Peek().pos);
      Next();
      return inner;
    }
    const Token& after = Peek(1);
    if ((IsKeyword(t, "TRUE") || IsKeyword(t, "FALSE")) && after.kind != Tok::kOp) {
      Predicate p;
      p.op = t.upper == "TRUE" ? PredicateOp::kTrue : PredicateOp::kFalse;
      Next();
      return p;
    }
    // literal op column
    if (IsLiteralToken(t) && after.kind == Tok::kOp) {
      TARN_ASSIGN_OR_RETURN(PredicateLiteral lit, ParseLiteral());
      Token op = Next();
      const Token& col = Peek();
      if (col.kind != Tok::kIdent && col.kind != Tok::kQuotedIdent) {
        return Error("expected a column name, found " + Describe(col), col.pos);
      }
      Predicate p;
      TARN_ASSIGN_OR_RETURN(p.op, CompareOp(op));
      p.op = Flip(p.op);
      TARN_RETURN_NOT_OK(ParseColumn(&p));
      p.literals.push_back(std::move(lit));
      return p;
    }
    if (t.kind != Tok::kIdent && t.kind != Tok::kQuotedIdent) {
      return Error("expected a column name, found " + Describe(t), t.pos);
    }
    if (t.kind == Tok::kIdent) {
      for (const char* kw : {"AND", "OR", "IN", "IS", "NULL"}) {
        if (t.upper == kw) return Error("expected a column name, found " + Describe(t), t.pos);
      }
    }
    Predicate p;
    TARN_RETURN_NOT_OK(ParseColumn(&p));
    const Token& k = Peek();
    if (IsKeyword(k, "IS")) {
      Next();
      bool negated = false;
      if (IsKeyword(Peek(), "NOT")) {
        Next();
        negated = true;
      }
      if (!IsKeyword(Peek(), "NULL")) return Error("expected NULL after IS", Peek().pos);
      Next();
      p.op = negated ? PredicateOp::kIsNotNull : PredicateOp::kIsNull;
      return p;
    }
    bool not_in = false;
    if (IsKeyword(k, "NOT") && IsKeyword(Peek(1), "IN")) {
      Next();
      not_in = true;
    }
    if (IsKeyword(Peek(), "IN")) {
      Next();
      if (Peek().kind != Tok::kLParen) return Error("expected '(' after IN", Peek().pos);
      Next();
      while (true) {
        TARN_ASSIGN_OR_RETURN(PredicateLiteral lit, ParseLiteral());
        p.literals.push_back(std::move(lit));
        Token sep = Next();
        if (sep.kind == Tok::kRParen) break;
        if (sep.kind != Tok::kComma)
          return Error("expected ',' or ')' in IN list, found " + Describe(sep), sep.pos);
      }
      p.op = not_in ? PredicateOp::kNotIn : PredicateOp::kIn;
      return p;
    }
    if (k.kind != Tok::kOp) {
      return Error(
          "expected a comparison, IN or IS after column " + ColumnText(p) + ", found " + Describe(k),
          k.pos);
    }
    Token op = Next();
    TARN_ASSIGN_OR_RETURN(p.op, CompareOp(op));
    if (Peek().kind == Tok::kIdent && !IsLiteralToken(Peek()) && !IsKeyword(Peek(), "NULL")) {
      return Error("comparing two columns is not supported", Peek().pos);
    }
    TARN_ASSIGN_OR_RETURN(PredicateLiteral lit, ParseLiteral());
    p.literals.push_back(std::move(lit));
    return p;
  }

  // A column name, then `.member` at each STRUCT level.
  Status ParseColumn(Predicate* p) {
    p->column = Next().text;
    while (Peek().kind == Tok::kDot) {
      Next();
      const Token m = Next();
      if (m.kind != Tok::kIdent && m.kind != Tok::kQuotedIdent) {
        return Error("expected a member name after '.', found " + Describe(m), m.pos);
      }
      p->members.push_back(m.text);
    }
    return Status::OK();
  }

  Result<PredicateOp> CompareOp(const Token& op) const {
    if (op.kind != Tok::kOp) return Error("expected a comparison operator", op.pos);
    if (op.text == "=") return PredicateOp::kEq;
    if (op.text == "<>" || op.text == "!=") return PredicateOp::kNe;
    if (op.text == "<") return PredicateOp::kLt;
    if (op.text == "<=") return PredicateOp::kLe;
    if (op.text == ">") return PredicateOp::kGt;
    if (op.text == ">=") return PredicateOp::kGe;
    return Error("unknown operator " + op.text, op.pos);
  }

  std::string_view text_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
};

// ---- Evaluation ----

// Three-valued results per row: 0 false, 1 unknown, 2 true. AND = min, OR = max, NOT = 2 - x.
constexpr uint8_t kF = 0, kU = 1, kT = 2;

template <typename V, typename Get>
void EvalCompare(PredicateOp op, int64_t n, Get get, const std::vector<V>& lits, uint8_t* out) {
  if (op == PredicateOp::kIn || op == PredicateOp::kNotIn) {
    const uint8_t hit = op == PredicateOp::kIn ? kT : kF, miss = op == PredicateOp::kIn ? kF : kT;
    if (lits.size() <= 8) {
      for (int64_t i = 0; i < n; ++i) {
        V v = get(i);
        bool found = false;
        for (const V& l : lits) found |= (v == l);
        out[i] = found ? hit : miss;
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        V v = get(i);
        auto it = std::lower_bound(lits.begin(), lits.end(), v);
        out[i] = (it != lits.end() && *it == v) ? hit : miss;
      }
    }
    return;
  }
  const V l = lits[0];
  switch (op) {
    case PredicateOp::kEq:
      for (int64_t i = 0; i < n; ++i) out[i] = get(i) == l ? kT : kF;
      break;
    case PredicateOp::kNe:
      for (int64_t i = 0; i < n; ++i) out[i] = get(i) != l ? kT : kF;
      break;
    case PredicateOp::kLt:
      for (int64_t i = 0; i < n; ++i) out[i] = get(i) < l ? kT : kF;
      break;
    case PredicateOp::kLe:
      for (int64_t i = 0; i < n; ++i) out[i] = get(i) <= l ? kT : kF;
      break;
    case PredicateOp::kGt:
      for (int64_t i = 0; i < n; ++i) out[i] = get(i) > l ? kT : kF;
      break;
    case PredicateOp::kGe:
      for (int64_t i = 0; i < n; ++i) out[i] = get(i) >= l ? kT : kF;
      break;
    default:
      break;
  }
}

template <typename T>
void EvalFixed(const BoundPredicate& p, const Column& col, uint8_t* out) {
  std::vector<T> lits(p.literals->length);
  for (int64_t i = 0; i < p.literals->length; ++i) lits[i] = p.literals->Value<T>(i);
  const uint8_t* base = col.data.data();
  EvalCompare<T>(
      p.op, col.length,
      [base](int64_t i) {
        T v;
        std::memcpy(&v, base + i * sizeof(T), sizeof(T));
        return v;
      },
      lits, out);
}

void EvalLeafValues(const BoundPredicate& p, const Column& col, uint8_t* out) {
  switch (col.type.id()) {
    case TypeId::kBoolean:
    case TypeId::kUInt8:
      return EvalFixed<uint8_t>(p, col, out);
    case TypeId::kInt8:
      return EvalFixed<int8_t>(p, col, out);
    case TypeId::kInt16:
      return EvalFixed<int16_t>(p, col, out);
    case TypeId::kUInt16:
      return EvalFixed<uint16_t>(p, col, out);
    case TypeId::kInt32:
    case TypeId::kDate:
      return EvalFixed<int32_t>(p, col, out);
    case TypeId::kUInt32:
    case TypeId::kIpv4:
      return EvalFixed<uint32_t>(p, col, out);
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return EvalFixed<int64_t>(p, col, out);
    case TypeId::kUInt64:
      return EvalFixed<uint64_t>(p, col, out);
    case TypeId::kFloat32:
      return EvalFixed<float>(p, col, out);
    case TypeId::kFloat64:
      return EvalFixed<double>(p, col, out);
    case TypeId::kDecimal:
      return EvalFixed<int128>(p, col, out);
    case TypeId::kUuid: {
      std::vector<std::string_view> lits;
      for (int64_t i = 0; i < p.literals->length; ++i) {
        lits.emplace_back(reinterpret_cast<const char*>(p.literals->data.data()) + i * 16, 16);
      }
      const char* base = reinterpret_cast<const char*>(col.data.data());
      EvalCompare<std::string_view>(
          p.op, col.length, [base](int64_t i) { return std::string_view(base + i * 16, 16); }, lits,
          out);
      return;
    }
    case TypeId::kVarchar:
    case TypeId::kBlob:
    case TypeId::kJson: {
      std::vector<std::string_view> lits;
      for (int64_t i = 0; i < p.literals->length; ++i) lits.push_back(p.literals->StringAt(i));
      EvalCompare<std::string_view>(
          p.op, col.length, [&col](int64_t i) { return col.StringAt(i); }, lits, out);
      return;
    }
    case TypeId::kArray:
    case TypeId::kStruct:
    case TypeId::kMap:
    case TypeId::kVariant:
      std::fill(out, out + col.length, kU);
      return;
  }
}

Status Eval(const BoundPredicate& p, const RecordBatch& batch, uint8_t* out) {
  const int64_t n = batch.num_rows;
  switch (p.op) {
    case PredicateOp::kTrue:
      std::fill(out, out + n, kT);
      return Status::OK();
    case PredicateOp::kFalse:
      std::fill(out, out + n, kF);
      return Status::OK();
    case PredicateOp::kAnd:
    case PredicateOp::kOr: {
      std::fill(out, out + n, p.op == PredicateOp::kAnd ? kT : kF);
      std::vector<uint8_t> tmp(n);
      for (const BoundPredicate& c : p.children) {
        TARN_RETURN_NOT_OK(Eval(c, batch, tmp.data()));
        if (p.op == PredicateOp::kAnd) {
          for (int64_t i = 0; i < n; ++i) out[i] = std::min(out[i], tmp[i]);
        } else {
          for (int64_t i = 0; i < n; ++i) out[i] = std::max(out[i], tmp[i]);
        }
      }
      return Status::OK();
    }
    case PredicateOp::kNot: {
      if (p.children.size() != 1) return Status::InvalidArgument("NOT needs one operand");
      TARN_RETURN_NOT_OK(Eval(p.children[0], batch, out));
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(kT - out[i]);
      return Status::OK();
    }
    default:
      break;
  }
  Column member;  // a STRUCT member's values, when the leaf is one
  const Column* col = FindFieldColumn(batch, p.field_id, &member);
  if (col == nullptr) {
    return Status::InvalidArgument("predicate column " + p.column + " (field id " +
                                   std::to_string(p.field_id) + ") is not in the batch");
  }
  if (col->type != p.type) {
    return Status::InvalidArgument("predicate column " + p.column + " is " + col->type.ToString() +
                                   " in the batch, bound as " + p.type.ToString());
  }
  if (col->length != n) return Status::InvalidArgument("column length differs from num_rows");
  if (p.op == PredicateOp::kIsNull || p.op == PredicateOp::kIsNotNull) {
    const bool want_null = p.op == PredicateOp::kIsNull;
    for (int64_t i = 0; i < n; ++i) out[i] = (col->IsValid(i) != want_null) ? kT : kF;
    return Status::OK();
  }
  if (!p.literals ||
      (p.literals->length == 0 && p.op != PredicateOp::kIn && p.op != PredicateOp::kNotIn)) {
    return Status::InvalidArgument("comparison without a literal");
  }
  if (p.literals->length == 0) {
    std::fill(out, out + n, p.op == PredicateOp::kIn ? kF : kT);
  } else {
    EvalLeafValues(p, *col, out);
  }
  if (!col->validity.empty()) {
    for (int64_t i = 0; i < n; ++i) {
      if (col->validity[i] == 0) out[i] = kU;
    }
  }
  return Status::OK();
}

// ---- Negation normal form (valid under three-valued logic for "is TRUE" filtering) ----

BoundPredicate Negate(const BoundPredicate& p);

BoundPredicate ToNnf(const BoundPredicate& p) {
  if (p.op == PredicateOp::kNot) return p.children.empty() ? p : Negate(p.children[0]);
  if (p.op == PredicateOp::kAnd || p.op == PredicateOp::kOr) {
    BoundPredicate out = p;
    for (BoundPredicate& c : out.children) c = ToNnf(c);
    return out;
  }
  return p;
}

BoundPredicate Negate(const BoundPredicate& p) {
  BoundPredicate out = p;
  switch (p.op) {
    case PredicateOp::kTrue:
      out.op = PredicateOp::kFalse;
      break;
    case PredicateOp::kFalse:
      out.op = PredicateOp::kTrue;
      break;
    case PredicateOp::kEq:
      out.op = PredicateOp::kNe;
      break;
    case PredicateOp::kNe:
      out.op = PredicateOp::kEq;
      break;
    case PredicateOp::kLt:
      out.op = PredicateOp::kGe;
      break;
    case PredicateOp::kLe:
      out.op = PredicateOp::kGt;
      break;
    case PredicateOp::kGt:
      out.op = PredicateOp::kLe;
      break;
    case PredicateOp::kGe:
      out.op = PredicateOp::kLt;
      break;
    case PredicateOp::kIn:
      out.op = PredicateOp::kNotIn;
      break;
    case PredicateOp::kNotIn:
      out.op = PredicateOp::kIn;
      break;
    case PredicateOp::kIsNull:
      out.op = PredicateOp::kIsNotNull;
      break;
    case PredicateOp::kIsNotNull:
      out.op = PredicateOp::kIsNull;
      break;
    case PredicateOp::kNot:
      return p.children.empty() ? p : ToNnf(p.children[0]);
    case PredicateOp::kAnd:
    case PredicateOp::kOr:
      out.op = p.op == PredicateOp::kAnd ? PredicateOp::kOr : PredicateOp::kAnd;
      for (BoundPredicate& c : out.children) c = Negate(c);
      break;
  }
  return out;
}

// ---- Pruning ----

bool LiteralIsNanOrZero(const BoundPredicate& p, int64_t i) {
  if (p.type.id() == TypeId::kFloat32) {
    float f = p.literals->Value<float>(i);
    return std::isnan(f) || f == 0;
  }
  if (p.type.id() == TypeId::kFloat64) {
    double d = p.literals->Value<double>(i);
    return std::isnan(d) || d == 0;
  }
  return false;
}

// Whether a leaf can match rows whose values all lie in [lo, hi] (ordered keys).
bool RangeMightMatch(const BoundPredicate& p, const std::string& lo, const std::string& hi,
                     bool may_have_nan) {
  const int64_t n = p.literals ? p.literals->length : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (LiteralIsNanOrZero(p, i)) return true;  // -0/+0 and NaN: no key-order pruning
  }
  auto key = [&](int64_t i) { return OrderedKey(*p.literals, i); };
  switch (p.op) {
    case PredicateOp::kEq: {
      std::string k = key(0);
      return lo <= k && k <= hi;
    }
    case PredicateOp::kNe: {
      if (may_have_nan) return true;
      std::string k = key(0);
      return !(lo == hi && lo == k);
    }
    case PredicateOp::kLt:
      return lo < key(0);
    case PredicateOp::kLe:
      return lo <= key(0);
    case PredicateOp::kGt:
      return hi > key(0);
    case PredicateOp::kGe:
      return hi >= key(0);
    case PredicateOp::kIn:
      for (int64_t i = 0; i < n; ++i) {
        std::string k = key(i);
        if (lo <= k && k <= hi) return true;
      }
      return false;
    case PredicateOp::kNotIn:
      if (may_have_nan || lo != hi) return true;
      for (int64_t i = 0; i < n; ++i) {
        if (key(i) == lo) return false;
      }
      return true;
    default:
      return true;
  }
}

// Whether a leaf can match given one partition field's value `pv` (text in the transform's
// result type; nullopt: the source column is null in every row).
bool PartitionMightMatch(const BoundPredicate& p, const PartitionField& pf,
                         const std::optional<std::string>& pv) {
  const TransformKind kind = pf.transform.kind;
  if (kind == TransformKind::kVoid) return true;
  if (!pv) return p.op == PredicateOp::kIsNull;
  if (p.op == PredicateOp::kIsNull) return false;
  if (p.op == PredicateOp::kIsNotNull || !p.literals) return true;
  Result<DataType> rt = pf.transform.ResultType(p.type);
  if (!rt.ok()) return true;
  Result<std::string> pkey = OrderedKeyFromText(*rt, *pv);
  if (!pkey.ok()) return true;
  if (kind == TransformKind::kIdentity) {
    return RangeMightMatch(p, *pkey, *pkey, p.type.is_floating());
  }
  Result<Column> t = ApplyTransform(pf.transform, *p.literals);
  if (!t.ok()) return true;
  for (int64_t i = 0; i < p.literals->length; ++i) {
    if (LiteralIsNanOrZero(p, i)) return true;
  }
  auto tkey = [&](int64_t i) { return OrderedKey(*t, i); };
  switch (p.op) {
    case PredicateOp::kEq:
      return tkey(0) == *pkey;
    case PredicateOp::kIn:
      for (int64_t i = 0; i < t->length; ++i) {
        if (tkey(i) == *pkey) return true;
      }
      return false;
    default:
      break;
  }
  if (kind == TransformKind::kBucket) return true;
  switch (p.op) {
    case PredicateOp::kLt:
    case PredicateOp::kLe:
      return *pkey <= tkey(0);
    case PredicateOp::kGt:
    case PredicateOp::kGe:
      return *pkey >= tkey(0);
    default:
      return true;
  }
}

bool MightMatchNnf(const BoundPredicate& p, const DataFile& file, const PartitionSpec& spec) {
  switch (p.op) {
    case PredicateOp::kTrue:
      return true;
    case PredicateOp::kFalse:
      return false;
    case PredicateOp::kAnd:
      for (const BoundPredicate& c : p.children) {
        if (!MightMatchNnf(c, file, spec)) return false;
      }
      return true;
    case PredicateOp::kOr:
      for (const BoundPredicate& c : p.children) {
        if (MightMatchNnf(c, file, spec)) return true;
      }
      return p.children.empty();
    case PredicateOp::kNot:
      return true;
    default:
      break;
  }
  if (file.spec_id == spec.spec_id && file.partition.size() == spec.fields.size()) {
    for (size_t i = 0; i < spec.fields.size(); ++i) {
      if (spec.fields[i].source_id == p.field_id &&
          !PartitionMightMatch(p, spec.fields[i], file.partition[i])) {
        return false;
      }
    }
  }
  const ColumnStats* s = file.FindStats(p.field_id);
  if (s == nullptr) return true;
  const bool counts = s->value_count > 0 || file.record_count == 0;
  if (p.op == PredicateOp::kIsNull) return !counts || s->null_count > 0;
  const bool all_null = counts && s->null_count >= s->value_count;
  if (all_null) return false;
  if (p.op == PredicateOp::kIsNotNull) return true;
  if (!p.literals || p.type.is_nested() || p.type.id() == TypeId::kVariant) return true;
  const bool may_have_nan = p.type.is_floating() && (!s->nan_count || *s->nan_count > 0);
  if (!s->lower || !s->upper) {
    // No bounds: only the NaN-only case can still be pruned, and we keep it simple.
    return true;
  }
  Result<Column> lo = DecodeBound(p.type, *s->lower);
  Result<Column> hi = DecodeBound(p.type, *s->upper);
  if (!lo.ok() || !hi.ok()) return true;
  return RangeMightMatch(p, OrderedKey(*lo, 0), OrderedKey(*hi, 0), may_have_nan);
}

// ---- Partition key ranges ----

std::optional<KeyRange> LeafKeyRange(const BoundPredicate& p, const PartitionField& pf) {
  if (p.field_id != pf.source_id) return std::nullopt;
  const TransformKind kind = pf.transform.kind;
  if (kind == TransformKind::kVoid) return std::nullopt;
  if (p.op == PredicateOp::kIsNull) return KeyRange{std::nullopt, std::nullopt, {}, true};
  if (!p.literals || p.literals->length == 0) {
    if (p.op == PredicateOp::kIn) return KeyRange{std::nullopt, std::nullopt, {}, true};
    return std::nullopt;
  }
  for (int64_t i = 0; i < p.literals->length; ++i) {
    if (LiteralIsNanOrZero(p, i)) return std::nullopt;
  }
  Result<Column> t = ApplyTransform(pf.transform, *p.literals);
  if (!t.ok()) return std::nullopt;
  KeyRange r;
  switch (p.op) {
    case PredicateOp::kEq:
      r.in.push_back(OrderedKey(*t, 0));
      return r;
    case PredicateOp::kIn:
      for (int64_t i = 0; i < t->length; ++i) r.in.push_back(OrderedKey(*t, i));
      std::sort(r.in.begin(), r.in.end());
      r.in.erase(std::unique(r.in.begin(), r.in.end()), r.in.end());
      return r;
    default:
      break;
  }
  if (kind == TransformKind::kBucket) return std::nullopt;
  switch (p.op) {
    case PredicateOp::kLt:
    case PredicateOp::kLe:
      r.hi = OrderedKey(*t, 0);
      return r;
    case PredicateOp::kGt:
    case PredicateOp::kGe:
      r.lo = OrderedKey(*t, 0);
      return r;
    default:
      return std::nullopt;
  }
}

void Normalize(KeyRange* r) {
  if (r->empty) return;
  if (!r->in.empty()) {
    std::vector<std::string> kept;
    for (std::string& k : r->in) {
      if ((!r->lo || k >= *r->lo) && (!r->hi || k <= *r->hi)) kept.push_back(std::move(k));
    }
    r->in = std::move(kept);
    if (r->in.empty()) {
      r->empty = true;
    } else {
      r->lo = r->in.front();
      r->hi = r->in.back();
    }
    return;
  }
  if (r->lo && r->hi && *r->lo > *r->hi) r->empty = true;
}

KeyRange Intersect(KeyRange a, const KeyRange& b) {
  if (a.empty || b.empty) return KeyRange{std::nullopt, std::nullopt, {}, true};
  if (b.lo && (!a.lo || *b.lo > *a.lo)) a.lo = b.lo;
  if (b.hi && (!a.hi || *b.hi < *a.hi)) a.hi = b.hi;
  if (!b.in.empty()) {
    if (a.in.empty()) {
      a.in = b.in;
    } else {
      std::vector<std::string> both;
      std::set_intersection(a.in.begin(), a.in.end(), b.in.begin(), b.in.end(),
                            std::back_inserter(both));
      if (both.empty()) return KeyRange{std::nullopt, std::nullopt, {}, true};
      a.in = std::move(both);
    }
  }
  Normalize(&a);
  return a;
}

KeyRange Union(const KeyRange& a, const KeyRange& b) {
  if (a.empty) return b;
  if (b.empty) return a;
  KeyRange r;
  if (!a.in.empty() && !b.in.empty()) {
    std::set_union(a.in.begin(), a.in.end(), b.in.begin(), b.in.end(), std::back_inserter(r.in));
    Normalize(&r);
    return r;
  }
  auto lo_of = [](const KeyRange& x) { return x.in.empty() ? x.lo : std::optional(x.in.front()); };
  auto hi_of = [](const KeyRange& x) { return x.in.empty() ? x.hi : std::optional(x.in.back()); };
  std::optional<std::string> alo = lo_of(a), blo = lo_of(b), ahi = hi_of(a), bhi = hi_of(b);
  if (alo && blo) r.lo = std::min(*alo, *blo);
  if (ahi && bhi) r.hi = std::max(*ahi, *bhi);
  return r;
}

std::optional<KeyRange> RangeOf(const BoundPredicate& p, const PartitionField& pf) {
  switch (p.op) {
    case PredicateOp::kTrue:
      return std::nullopt;
    case PredicateOp::kFalse:
      return KeyRange{std::nullopt, std::nullopt, {}, true};
    case PredicateOp::kAnd: {
      std::optional<KeyRange> acc;
      for (const BoundPredicate& c : p.children) {
        std::optional<KeyRange> r = RangeOf(c, pf);
        if (!r) continue;
        acc = acc ? Intersect(*acc, *r) : *r;
      }
      return acc;
    }
    case PredicateOp::kOr: {
      std::optional<KeyRange> acc;
      bool first = true;
      for (const BoundPredicate& c : p.children) {
        std::optional<KeyRange> r = RangeOf(c, pf);
        if (!r) return std::nullopt;
        acc = first ? *r : Union(*acc, *r);
        first = false;
      }
      return acc;
    }
    case PredicateOp::kNot:
      return std::nullopt;  // gone after NNF
    default: {
      std::optional<KeyRange> r = LeafKeyRange(p, pf);
      if (r) Normalize(&*r);
      return r;
    }
  }
}

// The leaves' field ids, or (`columns`) the ids of the top-level columns holding them.
void CollectIds(const BoundPredicate& p, bool columns, std::vector<int32_t>* ids) {
  switch (p.op) {
    case PredicateOp::kTrue:
    case PredicateOp::kFalse:
      return;
    case PredicateOp::kAnd:
    case PredicateOp::kOr:
    case PredicateOp::kNot:
      for (const BoundPredicate& c : p.children) CollectIds(c, columns, ids);
      return;
    default:
      ids->push_back(columns ? p.top_field_id : p.field_id);
  }
}

}  // namespace

// ---- Public API ----

std::string Predicate::ToString() const { return TreeText(*this, RawLeafText{}); }
std::string BoundPredicate::ToString() const { return TreeText(*this, BoundLeafText{}); }

Result<Predicate> ParsePredicate(std::string_view text) { return Parser(text).Run(); }

namespace {

// The literal kinds a column type compares with without changing the comparison's meaning:
// numbers for numeric columns (plus 'NaN'/'Infinity' for floats, which have no number
// syntax), TRUE/FALSE for BOOLEAN, and strings for everything else (text, bytes, JSON, UUID,
// IPv4 and the date/time types, whose text form value_text parses).
enum class LiteralFamily : uint8_t { kNumber, kBoolean, kString };

LiteralFamily FamilyOf(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kFloat32:
    case TypeId::kFloat64:
    case TypeId::kDecimal:
      return LiteralFamily::kNumber;
    case TypeId::kBoolean:
      return LiteralFamily::kBoolean;
    default:
      return LiteralFamily::kString;
  }
}

const char* LiteralKindName(PredicateLiteral::Kind kind) {
  switch (kind) {
    case PredicateLiteral::Kind::kNumber:
      return "number";
    case PredicateLiteral::Kind::kBoolean:
      return "boolean";
    case PredicateLiteral::Kind::kString:
      return "string";
  }
  return "literal";
}

bool IsFloatSpecial(std::string_view text) {
  std::string t;
  for (char c : text) {
    if (c == ' ' || c == '\t') continue;
    t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  if (!t.empty() && (t[0] == '-' || t[0] == '+')) t.erase(0, 1);
  return t == "nan" || t == "inf" || t == "infinity";
}

// kInvalidArgument code=predicate_type_mismatch when `lit` is of another family than `f`
// (`name > 5` on a VARCHAR would otherwise compare text, `id = '5'` or `ok = 1` would rely on
// a text-to-value cast the caller did not write).
Status CheckLiteralFamily(const Field& f, const PredicateLiteral& lit) {
  const TypeId id = f.type.id();
  const LiteralFamily want = FamilyOf(id);
  bool ok = false;
  switch (lit.kind) {
    case PredicateLiteral::Kind::kNumber:
      ok = want == LiteralFamily::kNumber;
      break;
    case PredicateLiteral::Kind::kBoolean:
      ok = want == LiteralFamily::kBoolean;
      break;
    case PredicateLiteral::Kind::kString:
      ok = want == LiteralFamily::kString ||
           ((id == TypeId::kFloat32 || id == TypeId::kFloat64) && IsFloatSpecial(lit.text));
      break;
  }
  if (ok) return Status::OK();
  const char* hint = want == LiteralFamily::kNumber    ? "a number"
                     : want == LiteralFamily::kBoolean ? "TRUE or FALSE"
                                                       : "a 'quoted' string";
  const std::string shown = lit.kind == PredicateLiteral::Kind::kString
                                ? QuoteString(lit.text.substr(0, 60))
                                : lit.text.substr(0, 60);
  return Status::Of(codes::kPredicateTypeMismatch,
                    "predicate: column " + f.name + " is " + f.type.ToString() + " but " + shown +
                        " is a " + LiteralKindName(lit.kind) + " literal; compare it with " + hint)
      .WithField("column", f.name)
      .WithField("column_type", f.type.ToString())
      .WithField("literal_type", LiteralKindName(lit.kind))
      .WithField("value", lit.text.substr(0, 60));
}

}  // namespace

Result<BoundPredicate> BindPredicate(const Predicate& predicate, const Schema& schema) {
  BoundPredicate b;
  b.op = predicate.op;
  switch (predicate.op) {
    case PredicateOp::kTrue:
    case PredicateOp::kFalse:
      return b;
    case PredicateOp::kAnd:
    case PredicateOp::kOr:
    case PredicateOp::kNot:
      if (predicate.children.empty() ||
          (predicate.op == PredicateOp::kNot && predicate.children.size() != 1)) {
        return Status::InvalidArgument("predicate: malformed tree");
      }
      for (const Predicate& c : predicate.children) {
        TARN_ASSIGN_OR_RETURN(BoundPredicate bc, BindPredicate(c, schema));
        b.children.push_back(std::move(bc));
      }
      return b;
    default:
      break;
  }
  std::vector<std::string> names = {predicate.column};
  names.insert(names.end(), predicate.members.begin(), predicate.members.end());
  Result<FieldPath> path = ResolveFieldPath(schema, names);
  if (!path.ok()) {
    return Status::InvalidArgument("predicate: " + path.status().message())
        .WithField("column", ColumnText(predicate).substr(0, 200));
  }
  Field f = *path->field;  // named by its path in messages
  f.name = path->Text();
  if (f.field_id < 0) {
    return Status::InvalidArgument("predicate: " + f.name + " has no field id")
        .WithField("column", f.name);
  }
  b.field_id = f.field_id;
  b.top_field_id = path->top_field_id;
  b.column = path->names[0];
  b.members.assign(path->names.begin() + 1, path->names.end());
  b.type = f.type;
  if (predicate.op == PredicateOp::kIsNull || predicate.op == PredicateOp::kIsNotNull) return b;
  if (f.type.is_nested() || f.type.id() == TypeId::kVariant) {
    return Status::InvalidArgument("predicate: column " + f.name + " is " + f.type.ToString() +
                                   "; only IS NULL / IS NOT NULL apply")
        .WithField("column", f.name);
  }
  const bool is_set = predicate.op == PredicateOp::kIn || predicate.op == PredicateOp::kNotIn;
  if (predicate.literals.empty() || (!is_set && predicate.literals.size() != 1)) {
    return Status::InvalidArgument("predicate: comparison on " + f.name + " needs one literal");
  }
  auto lits = std::make_shared<Column>(f.type);
  for (const PredicateLiteral& l : predicate.literals) {
    TARN_RETURN_NOT_OK(CheckLiteralFamily(f, l));
    Status st = AppendParsedValue(l.text, lits.get());
    if (!st.ok()) {
      return Status::Of(codes::kPredicateInvalidLiteral,
                        "predicate: literal " + QuoteString(l.text.substr(0, 60)) +
                            " is not a valid " + f.type.ToString() + " for column " + f.name +
                            ": " + st.message())
          .WithField("column", f.name)
          .WithField("column_type", f.type.ToString())
          .WithField("value", l.text);
    }
  }
  if (is_set && lits->length > 1) {
    // Sort ascending by value and drop duplicates (and NaNs, which equal nothing).
    std::vector<int64_t> rows;
    std::vector<std::string> keys(lits->length);
    for (int64_t i = 0; i < lits->length; ++i) {
      keys[i] = OrderedKey(*lits, i);
      bool nan = (f.type.id() == TypeId::kFloat32 && std::isnan(lits->Value<float>(i))) ||
                 (f.type.id() == TypeId::kFloat64 && std::isnan(lits->Value<double>(i)));
      if (!nan) rows.push_back(i);
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [&](int64_t a, int64_t c) { return keys[a] < keys[c]; });
    rows.erase(std::unique(rows.begin(), rows.end(),
                           [&](int64_t a, int64_t c) { return keys[a] == keys[c]; }),
               rows.end());
    Column sorted(f.type);
    for (int64_t r : rows) {
      if (f.type.is_variable_width()) {
        sorted.AppendBytes(lits->StringAt(r));
      } else {
        int w = f.type.PhysicalWidth();
        sorted.AppendFixedBytes(lits->data.data() + r * w, w);
      }
    }
    *lits = std::move(sorted);
  }
  b.literals = std::move(lits);
  return b;
}

Result<BoundPredicate> ParseAndBindPredicate(std::string_view text, const Schema& schema) {
  TARN_ASSIGN_OR_RETURN(Predicate p, ParsePredicate(text));
  return BindPredicate(p, schema);
}

Result<std::vector<uint8_t>> EvaluatePredicate(const BoundPredicate& predicate,
                                               const RecordBatch& batch) {
  std::vector<uint8_t> tri(batch.num_rows);
  TARN_RETURN_NOT_OK(Eval(predicate, batch, tri.data()));
  for (uint8_t& v : tri) v = v == kT ? 1 : 0;
  return tri;
}

bool MightMatch(const BoundPredicate& predicate, const DataFile& file, const PartitionSpec& spec,
                const Schema& schema) {
  (void)schema;
  return MightMatchNnf(ToNnf(predicate), file, spec);
}

namespace {

bool MembershipNnf(
    const BoundPredicate& p,
    const std::function<bool(int32_t field_id, const Column& literals, int64_t i)>& might_contain) {
  switch (p.op) {
    case PredicateOp::kFalse:
      return false;
    case PredicateOp::kAnd:
      for (const BoundPredicate& c : p.children) {
        if (!MembershipNnf(c, might_contain)) return false;
      }
      return true;
    case PredicateOp::kOr:
      for (const BoundPredicate& c : p.children) {
        if (MembershipNnf(c, might_contain)) return true;
      }
      return p.children.empty();
    case PredicateOp::kEq:
    case PredicateOp::kIn:
      if (!p.literals) return true;
      for (int64_t i = 0; i < p.literals->length; ++i) {
        if (might_contain(p.field_id, *p.literals, i)) return true;
      }
      return false;
    default:  // ranges, <>, NOT IN, nulls and what NNF left under NOT cannot be asked
      return true;
  }
}

void CollectMembershipIds(const BoundPredicate& p, std::vector<int32_t>* ids) {
  switch (p.op) {
    case PredicateOp::kAnd:
    case PredicateOp::kOr:
      for (const BoundPredicate& c : p.children) CollectMembershipIds(c, ids);
      return;
    case PredicateOp::kEq:
    case PredicateOp::kIn:
      if (p.literals) ids->push_back(p.field_id);
      return;
    default:
      return;
  }
}

}  // namespace

std::vector<int32_t> MembershipFieldIds(const BoundPredicate& predicate) {
  std::vector<int32_t> ids;
  CollectMembershipIds(ToNnf(predicate), &ids);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

bool MightMatchMembership(
    const BoundPredicate& predicate,
    const std::function<bool(int32_t field_id, const Column& literals, int64_t i)>& might_contain) {
  return MembershipNnf(ToNnf(predicate), might_contain);
}

std::optional<KeyRange> PartitionKeyRange(const BoundPredicate& predicate,
                                          const PartitionSpec& spec, const Schema& schema) {
  (void)schema;
  if (spec.fields.empty()) return std::nullopt;
  return RangeOf(ToNnf(predicate), spec.fields[0]);
}

std::vector<int32_t> ReferencedFieldIds(const BoundPredicate& predicate) {
  std::vector<int32_t> ids;
  CollectIds(predicate, false, &ids);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<int32_t> ReferencedColumnIds(const BoundPredicate& predicate) {
  std::vector<int32_t> ids;
  CollectIds(predicate, true, &ids);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

}  // namespace tarn
