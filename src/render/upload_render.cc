#include "render/upload_render.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <set>

#include "api/contract_wire.h"
#include "formats/error_codes.h"
#include "render/error_codes.h"
#include "sdk/upload_error_codes.h"

namespace tarn::render {

using nlohmann::json;

namespace {

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Splits `text` at `sep` (the first one), both sides trimmed.
bool SplitOnce(const std::string& text, char sep, std::string* left, std::string* right) {
  size_t p = text.find(sep);
  if (p == std::string::npos) return false;
  *left = Trim(text.substr(0, p));
  *right = Trim(text.substr(p + 1));
  return true;
}

// Items of a prompt line: split at whitespace and commas outside () and [].
std::vector<std::string> SplitItems(const std::string& line) {
  std::vector<std::string> items;
  std::string cur;
  int depth = 0;
  for (char c : line) {
    if (c == '(' || c == '[') ++depth;
    if ((c == ')' || c == ']') && depth > 0) --depth;
    bool sep = depth == 0 && (std::isspace(static_cast<unsigned char>(c)) || c == ',');
    if (sep) {
      if (!cur.empty()) items.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) items.push_back(std::move(cur));
  return items;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

const ContractIssue* FirstBlocking(const Contract& c) {
  for (const auto& i : c.issues) {
    if (i.blocking()) return &i;
  }
  return nullptr;
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> ParseDeclarations(
    const std::vector<std::string>& args) {
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  for (const auto& a : args) {
    std::string name, type;
    if (!SplitOnce(a, ':', &name, &type) || name.empty() || type.empty()) {
      return Status::Of(codes::kBadDeclaration, "--declare: expected COLUMN:TYPE, got '" + a + "'");
    }
    if (!seen.insert(name).second) {
      return Status::Of(codes::kBadDeclaration,
                        "--declare: column '" + name + "' is declared twice")
          .WithField("column", name);
    }
    out.emplace_back(std::move(name), std::move(type));
  }
  return out;
}

Result<std::map<std::string, std::string>> ParseTypeAssignments(
    const std::vector<std::string>& args) {
  std::map<std::string, std::string> out;
  for (const auto& a : args) {
    std::string name, type;
    if (!SplitOnce(a, '=', &name, &type) || name.empty() || type.empty()) {
      return Status::Of(codes::kBadTypeAssignment, "--type: expected COLUMN=TYPE, got '" + a + "'");
    }
    auto [it, inserted] = out.emplace(name, type);
    if (!inserted && it->second != type) {
      return Status::Of(codes::kBadTypeAssignment,
                        "--type: column '" + name + "' is given two types")
          .WithField("column", name);
    }
  }
  return out;
}

Result<PromptAnswer> ParsePromptLine(const std::string& line) {
  PromptAnswer answer;
  std::string t = Trim(line);
  if (t.empty()) return answer;
  std::string l = Lower(t);
  if (l == "q" || l == "quit" || l == "stop" || l == "exit") {
    answer.kind = PromptAnswer::Kind::kStop;
    return answer;
  }
  answer.kind = PromptAnswer::Kind::kEdit;
  for (const std::string& item : SplitItems(t)) {
    if (item[0] == '-') {
      std::string col = item.substr(1);
      if (col.empty() || col.find('=') != std::string::npos) {
        return Status::InvalidArgument("'" + item + "': to drop a column type -column");
      }
      answer.ignore.push_back(col);
      continue;
    }
    std::string name, type;
    if (!SplitOnce(item, '=', &name, &type) || name.empty() || type.empty()) {
      return Status::InvalidArgument("'" + item +
                                     "': type column=TYPE to change a type, -column to drop "
                                     "one, enter to accept, q to stop");
    }
    answer.retype[name] = type;
  }
  return answer;
}

std::string FormatBytes(int64_t bytes) {
  if (bytes < 0) return "?";
  if (bytes < 1000) return std::to_string(bytes) + " B";
  static const char* kUnits[] = {"KB", "MB", "GB", "TB", "PB", "EB"};
  double v = static_cast<double>(bytes) / 1000.0;
  int u = 0;
  while (v >= 999.95 && u < 5) {
    v /= 1000.0;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", v, kUnits[u]);
  return buf;
}

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds > 359999) seconds = 359999;  // 99:59:59
  auto s = static_cast<int64_t>(std::llround(seconds));
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld", static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60), static_cast<long long>(s % 60));
  } else {
    std::snprintf(buf, sizeof(buf), "%lld:%02lld", static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  }
  return buf;
}

std::string ProgressText(const std::string& name, int64_t done, int64_t total, double elapsed_s) {
  std::string out = "  " + name + "  " + FormatBytes(done);
  if (total > 0) out += " / " + FormatBytes(total);
  // The rate once it means something, and always on the last draw.
  const bool finished = total > 0 && done >= total;
  if (done > 0 && (elapsed_s > 0.2 || (finished && elapsed_s > 0))) {
    double rate = static_cast<double>(done) / elapsed_s;
    out += "  " + FormatBytes(static_cast<int64_t>(rate)) + "/s";
    if (total > 0 && done < total) {
      out += "  ETA " + FormatDuration(static_cast<double>(total - done) / rate);
    }
  }
  return out;
}

std::vector<std::vector<std::string>> PlanRows(const Contract& contract) {
  std::vector<std::vector<std::string>> rows;
  for (const PlanEntry& e : contract.plan) {
    std::string type = e.to.empty() ? e.from : e.to;
    std::string note;
    if (e.action == PlanAction::kIgnored) {
      note = "read and not written";
    } else if (e.action == PlanAction::kUndeclared) {
      note = "not in the dataset (drop it: -" + e.column + ")";
    } else if (e.action == PlanAction::kMissing) {
      note = "not in the data: written as nulls";
    } else if (e.action == PlanAction::kUnsupported) {
      note = "no conversion from " + e.from;
    } else if (e.retyped && !e.from.empty() && e.from != e.to) {
      note = "was " + e.from + (e.changes_values ? ", converted" : "");
    } else if (e.action == PlanAction::kCast) {
      note = "from " + e.from + ", converted";
    } else if (e.action == PlanAction::kWiden) {
      note = "from " + e.from + ", widened";
    } else if (e.action == PlanAction::kRetag) {
      note = "from " + e.from + ", relabelled";
    }
    rows.push_back({e.column, e.sample, type, note});
  }
  return rows;
}

std::vector<std::string> ConversionLines(const Contract& contract) {
  std::vector<std::vector<std::string>> cells;
  for (const PlanEntry& e : contract.plan) {
    if (e.action == PlanAction::kKeep) continue;
    std::string what;
    if (e.action == PlanAction::kMissing) {
      what = e.to + ": not in the data, written as nulls";
    } else if (e.action == PlanAction::kIgnored) {
      what = e.from + ": read and not written";
    } else if (e.action == PlanAction::kUndeclared) {
      what = e.from + ": not in the dataset";
    } else if (e.action == PlanAction::kUnsupported) {
      what = e.from + " -> " + e.to + ": no conversion exists";
    } else {
      what = e.from + " -> " + e.to;
      if (e.changes_values) what += "  (values converted)";
    }
    cells.push_back({std::string(PlanActionName(e.action)), e.column, what});
  }
  size_t w0 = 0, w1 = 0;
  for (const auto& c : cells) {
    w0 = std::max(w0, c[0].size());
    w1 = std::max(w1, c[1].size());
  }
  std::vector<std::string> lines;
  for (const auto& c : cells) {
    std::string l = c[0];
    l.append(w0 - c[0].size() + 2, ' ');
    l += c[1];
    l.append(w1 - c[1].size() + 2, ' ');
    l += c[2];
    lines.push_back(std::move(l));
  }
  return lines;
}

std::string TargetSummary(const Contract& c) {
  if (c.mode == SchemaMode::kCreate) {
    if (c.schema_source == "inferred") return "new, types read from your data";
    return "new, declared types";
  }
  if (c.mode == SchemaMode::kOverwrite)
    return "exists; its rows are replaced, converted to its types";
  return "exists; rows are appended, converted to its types";
}

Status BlockingIssueError(const Contract& contract) {
  const ContractIssue* i = FirstBlocking(contract);
  if (i == nullptr) return Status::OK();
  std::string msg = "the plan cannot be written: " + i->code;
  if (!i->column.empty()) msg += " (column " + i->column + ")";
  if (!i->detail.empty()) msg += ": " + i->detail;
  if (i->code == codes::kColumnUndeclared.name) {
    msg += "; --ignore " + i->column + " leaves it out";
  }
  msg += "; nothing was written";
  // A refusal of the data (its code exits 3 as invalid_argument) stays one; any other blocking
  // issue refuses the plan.
  const ErrorCode* code = ErrorRegistry::Find(i->code);
  bool refuses_data =
      code != nullptr && code->kind == ErrorKind::kInvalidArgument && code->exit_code == 3;
  Status s = refuses_data ? Status::InvalidArgument(msg) : Status::FailedPrecondition(msg);
  s = std::move(s).WithField("code", i->code);
  if (!i->column.empty()) s = std::move(s).WithField("column", i->column);
  for (const auto& [k, v] : i->fields) {
    if (k != "code" && k != "column" && k != "contract_id") s = std::move(s).WithField(k, v);
  }
  return std::move(s).WithField("contract_id", contract.id);
}

json CommitJson(const UploadCommitResult& r, const std::string& contract_id) {
  json j = api::ToJson(r);
  if (!contract_id.empty()) j["contract_id"] = contract_id;
  return j;
}

json ContractJson(const Contract& c) {
  json j = api::ToJson(c);
  j["blocking"] = c.blocking();
  return j;
}

}  // namespace tarn::render
