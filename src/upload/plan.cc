// ComputePlan: the plan entries, issues, write schema and fingerprint of a contract.
#include "upload/plan.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "common/digest.h"
#include "common/hex.h"
#include "formats/error_codes.h"
#include "sdk/upload_error_codes.h"
#include "sdk/upload_json.h"
#include "table/error_codes.h"
#include "table/schema_json.h"
#include "types/cast.h"

namespace tarn::upload {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool IsTimestamp(const DataType& t) {
  return t.id() == TypeId::kTimestamp || t.id() == TypeId::kTimestampTz;
}

// What the samples say about one column of the data, over every file.
struct DataColumn {
  std::string name;
  std::vector<std::pair<std::string, DataType>> typed;  // files with non-null values
  std::vector<std::string> present;                     // files holding the column
  std::optional<DataType> unified;                      // nullopt: all null, or no unification
  bool disagree = false;
  std::string sample;
  // Inference's notes on objects (formats/infer.h), by file.
  std::vector<std::pair<std::string, std::string>> notes;
  // Every file holding it is read by the CSV or NDJSON reader (JSON text for nested columns),
  // none through a Parquet file's own types.
  bool text_read = true;
  bool all_null() const { return typed.empty(); }
  DataType from() const {
    if (unified) return *unified;
    if (!typed.empty()) return typed.front().second;
    return DataType::Varchar();  // only nulls: inferred VARCHAR
  }
};

struct Target {
  std::string name;
  DataType type;
  bool nullable = true;
  bool retyped = false;
  int data = -1;  // index into the data columns, -1 when not in the data
};

Status InvalidType(const std::string& column, const std::string& text, const Status& why) {
  return Status::Of(codes::kInvalidType, "column '" + column + "': " + why.message())
      .WithField("column", column)
      .WithField("type", text);
}

// "DECIMAL(10,2) NOT NULL" -> type and nullability.
Result<std::pair<DataType, bool>> ParseDeclaredType(const std::string& column,
                                                    std::string_view text) {
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  bool nullable = true;
  constexpr std::string_view kNotNull = "not null";
  if (t.size() > kNotNull.size() &&
      EqualsIgnoreCase(t.substr(t.size() - kNotNull.size()), kNotNull)) {
    std::string_view head = t.substr(0, t.size() - kNotNull.size());
    if (!head.empty() && std::isspace(static_cast<unsigned char>(head.back()))) {
      nullable = false;
      t = head;
    }
  }
  auto type = DataType::Parse(t);
  if (!type.ok()) return InvalidType(column, std::string(text), type.status());
  return std::make_pair(*type, nullable);
}

ContractIssue Issue(const ErrorCode& code, std::string column, std::string detail, bool blocking) {
  ContractIssue issue;
  issue.code = std::string(code.name);
  issue.column = std::move(column);
  issue.detail = std::move(detail);
  issue.severity = blocking ? IssueSeverity::kBlocking : IssueSeverity::kWarning;
  return issue;
}

std::string Join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

Status UnknownColumn(const std::string& column, std::string_view what) {
  return Status::Of(codes::kUnknownColumn, std::string(what) + " names column '" + column +
                                               "', which is neither in the data nor in the target")
      .WithField("column", column);
}

int Rank(PlanAction a) {
  switch (a) {
    case PlanAction::kKeep:
      return 0;
    case PlanAction::kRetag:
      return 1;
    case PlanAction::kWiden:
      return 2;
    case PlanAction::kCast:
      return 3;
    default:
      return 4;
  }
}

PlanAction Stronger(PlanAction a, PlanAction b) { return Rank(a) >= Rank(b) ? a : b; }

// The member of `fields` the readers match `name` to (exact, else the one equal ignoring ASCII
// case); -1 when none.
int MatchMember(const std::vector<Field>& fields, std::string_view name) {
  std::vector<std::string> names;
  for (const Field& f : fields) names.push_back(f.name);
  return MatchColumn(names, name);
}

// The action of reading values inferred as `from` into `to` with the CSV and NDJSON readers,
// when either type is nested: they parse JSON text (VARCHAR, JSON) into nested columns, match
// STRUCT members by name (a member missing from the data is null) and take an object as a MAP
// (formats/json_append.h). `why` gets the reason of kUnsupported.
PlanAction ClassifyTextRead(const DataType& from, const DataType& to, std::string_view sample,
                            std::string* why) {
  if (from == to) return PlanAction::kKeep;
  // The readers take any JSON value (NDJSON) or JSON text (CSV) as a VARIANT, value by value.
  if (to.id() == TypeId::kVariant) return PlanAction::kCast;
  if (!to.is_nested()) {
    PlanAction a = ClassifyConversion(from, to, sample);
    if (a == PlanAction::kUnsupported && why->empty()) {
      *why = "no conversion from " + from.ToString() + " to " + to.ToString();
    }
    return a;
  }
  const TypeId f = from.id();
  const TypeId t = to.id();
  if (f == TypeId::kVarchar || f == TypeId::kJson) return PlanAction::kCast;  // parsed JSON text
  auto unsupported = [&](std::string text) {
    if (why->empty()) *why = std::move(text);
    return PlanAction::kUnsupported;
  };
  if (f == TypeId::kArray && t == TypeId::kArray) {
    return ClassifyTextRead(from.element(), to.element(), "", why);
  }
  if (f == TypeId::kMap && t == TypeId::kMap) {
    return Stronger(ClassifyTextRead(from.key_field().type, to.key_field().type, "", why),
                    ClassifyTextRead(from.value_field().type, to.value_field().type, "", why));
  }
  if (f == TypeId::kStruct && t == TypeId::kStruct) {
    PlanAction action = PlanAction::kKeep;
    std::vector<bool> matched(to.children().size(), false);
    int last = -1;
    for (const Field& m : from.children()) {
      const int i = MatchMember(to.children(), m.name);
      if (i < 0)
        return unsupported("the data's member '" + m.name + "' is not in " + to.ToString());
      matched[i] = true;
      if (i < last) action = Stronger(action, PlanAction::kRetag);  // another order
      last = i;
      action = Stronger(action, ClassifyTextRead(m.type, to.children()[i].type, "", why));
    }
    for (size_t i = 0; i < matched.size(); ++i) {
      if (matched[i]) continue;
      if (!to.children()[i].nullable) {
        return unsupported("member '" + to.children()[i].name +
                           "' is NOT NULL and not in the data");
      }
      action = Stronger(action, PlanAction::kWiden);  // written as nulls
    }
    return action;
  }
  if (f == TypeId::kStruct && t == TypeId::kMap) {  // its members become entries
    PlanAction action = Stronger(
        PlanAction::kCast, ClassifyTextRead(DataType::Varchar(), to.key_field().type, "", why));
    for (const Field& m : from.children()) {
      action = Stronger(action, ClassifyTextRead(m.type, to.value_field().type, "", why));
    }
    return action;
  }
  if (f == TypeId::kMap && t == TypeId::kStruct && from.key_field().type.id() == TypeId::kVarchar) {
    // Keys that name no member fail the read: the sample check finds them.
    PlanAction action = PlanAction::kCast;
    for (const Field& m : to.children()) {
      action = Stronger(action, ClassifyTextRead(from.value_field().type, m.type, "", why));
    }
    return action;
  }
  return unsupported("no conversion from " + from.ToString() + " to " + to.ToString());
}

std::string NotesText(const DataColumn& d) {
  std::vector<std::string> distinct;
  for (const auto& [file, note] : d.notes) {
    if (std::find(distinct.begin(), distinct.end(), note) == distinct.end()) {
      distinct.push_back(note);
    }
  }
  if (distinct.size() == 1) return distinct[0];
  std::vector<std::string> parts;
  for (const auto& [file, note] : d.notes) parts.push_back(file + ": " + note);
  return Join(parts, " | ");
}

// The STRUCT two files' types of one column unify to: every member of either, in first-seen
// order, each unified; nullopt when two members differ only in case or do not unify.
std::optional<DataType> UnifyStructs(const DataType& a, const DataType& b) {
  std::vector<Field> members = a.children();
  for (const Field& m : b.children()) {
    auto same = std::find_if(members.begin(), members.end(),
                             [&](const Field& x) { return x.name == m.name; });
    if (same == members.end()) {
      if (std::any_of(members.begin(), members.end(),
                      [&](const Field& x) { return EqualsIgnoreCase(x.name, m.name); })) {
        return std::nullopt;
      }
      Field f = m;
      f.nullable = true;  // missing from the other file's rows
      members.push_back(std::move(f));
      continue;
    }
    auto t = UnifyTypes(same->type, m.type);
    if (!t) return std::nullopt;
    same->type = *t;
    same->nullable = same->nullable && m.nullable;
  }
  return DataType::Struct(std::move(members));
}

}  // namespace

bool Plan::blocking() const {
  return std::any_of(issues.begin(), issues.end(),
                     [](const ContractIssue& i) { return i.blocking(); });
}

bool Plan::retyped() const {
  return std::any_of(entries.begin(), entries.end(), [](const PlanEntry& e) { return e.retyped; });
}

int MatchColumn(const std::vector<std::string>& names, std::string_view name) {
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  int found = -1;
  for (size_t i = 0; i < names.size(); ++i) {
    if (EqualsIgnoreCase(names[i], name)) {
      if (found >= 0) return -1;
      found = static_cast<int>(i);
    }
  }
  return found;
}

std::optional<DataType> UnifyTypes(const DataType& a, const DataType& b) {
  if (a == b) return a;
  if (a.is_nested() || b.is_nested()) {
    // A file whose values inference kept as JSON makes the column JSON.
    if (a.id() == TypeId::kJson || b.id() == TypeId::kJson) return DataType::Json();
    if (a.id() != b.id()) return std::nullopt;
    if (a.id() == TypeId::kArray) {
      auto e = UnifyTypes(a.element(), b.element());
      if (!e) return std::nullopt;
      return DataType::Array(*e);
    }
    if (a.id() == TypeId::kMap) {
      auto v = UnifyTypes(a.value_field().type, b.value_field().type);
      if (!v || a.key_field().type != b.key_field().type) return std::nullopt;
      return DataType::Map(a.key_field().type, *v);
    }
    return UnifyStructs(a, b);
  }
  if (IsTimestamp(a) && a.id() == b.id()) return a.unit() > b.unit() ? a : b;
  auto int_float = [](const DataType& i, const DataType& f) {
    return i.is_integer() && f.is_floating();
  };
  if (int_float(a, b) || int_float(b, a)) return DataType::Float64();
  if (a.is_floating() && b.is_floating()) return DataType::Float64();
  auto int_dec = [](const DataType& i, const DataType& d) -> std::optional<DataType> {
    if (!i.is_integer() || d.id() != TypeId::kDecimal) return std::nullopt;
    // Room for any INT64 left of the point.
    int precision = std::min(38, std::max(d.precision(), d.scale() + 19));
    if (precision - d.scale() < 19) return DataType::Float64();
    return DataType::Decimal(precision, d.scale());
  };
  if (auto t = int_dec(a, b)) return t;
  if (auto t = int_dec(b, a)) return t;
  if (a.id() == TypeId::kDecimal && b.id() == TypeId::kDecimal) {
    int scale = std::max(a.scale(), b.scale());
    int digits = std::max(a.precision() - a.scale(), b.precision() - b.scale());
    if (digits + scale > 38) return DataType::Float64();
    return DataType::Decimal(digits + scale, scale);
  }
  auto dec_float = [](const DataType& d, const DataType& f) {
    return d.id() == TypeId::kDecimal && f.is_floating();
  };
  if (dec_float(a, b) || dec_float(b, a)) return DataType::Float64();
  return std::nullopt;
}

PlanAction ClassifyConversion(const DataType& from, const DataType& to, std::string_view sample) {
  if (from == to) return PlanAction::kKeep;
  if (from.id() == TypeId::kVarchar && to.id() == TypeId::kJson) return PlanAction::kRetag;
  if (from.id() == TypeId::kTimestamp && to.id() == TypeId::kTimestampTz &&
      from.unit() == to.unit()) {
    return PlanAction::kRetag;
  }
  if (from.id() == TypeId::kVarchar && (to.id() == TypeId::kUuid || to.id() == TypeId::kIpv4) &&
      !sample.empty() && formats::InferTextValue(sample).id() == to.id()) {
    return PlanAction::kRetag;
  }
  if (IsLosslessWidening(from, to)) return PlanAction::kWiden;
  if (from.id() == TypeId::kDate && to.id() == TypeId::kTimestamp) return PlanAction::kWiden;
  if (from.id() == TypeId::kTime && to.id() == TypeId::kTime &&
      to.unit() == TimeUnit::kNano) {  // every TIME value is a TIME[ns] value
    return PlanAction::kWiden;
  }
  if (CanCast(from, to)) return PlanAction::kCast;
  return PlanAction::kUnsupported;
}

std::string PlanFingerprint(std::string_view target, std::string_view mode,
                            std::string_view schema_source, std::string_view dataset_uuid,
                            int32_t schema_id, const std::vector<PlanEntry>& entries,
                            const std::vector<ContractIssue>& issues) {
  // nlohmann::json objects keep keys sorted: the dump is canonical.
  nlohmann::json doc = nlohmann::json::object();
  doc["target"] = std::string(target);
  doc["mode"] = std::string(mode);
  doc["schema_source"] = std::string(schema_source);
  doc["dataset_uuid"] = std::string(dataset_uuid);
  doc["schema_id"] = schema_id;
  nlohmann::json plan = nlohmann::json::array();
  for (const PlanEntry& e : entries) {
    plan.push_back({{"column", e.column},
                    {"from", e.from},
                    {"to", e.to},
                    {"action", std::string(PlanActionName(e.action))}});
  }
  doc["plan"] = std::move(plan);
  nlohmann::json codes = nlohmann::json::array();
  for (const ContractIssue& i : issues) codes.push_back(i.code);
  doc["issues"] = std::move(codes);
  // Column names are validated UTF-8 identifiers, but never throw on odd bytes.
  std::string text = doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return HexEncode(Sha256(text).substr(0, 16));
}

Result<Plan> ComputePlan(const PlanInput& in) {
  if (in.files.empty()) return Status::InvalidArgument("a plan needs at least one sampled file");
  if (in.source != SchemaSourceKind::kDeclared && in.source != SchemaSourceKind::kInferred &&
      in.source != SchemaSourceKind::kDataset) {
    return Status::Of(codes::kSchemaSourceRequired,
                      "the schema source must be resolved before planning");
  }
  if (in.source == SchemaSourceKind::kDataset && in.dataset == nullptr) {
    return Status::InvalidArgument("dataset mode needs the dataset");
  }
  if (in.source == SchemaSourceKind::kDataset && !in.retype.empty()) {
    return Status::Of(codes::kRetypeNotAllowed,
                      "columns of an existing dataset cannot be retyped (column '" +
                          in.retype.begin()->first +
                          "'): its types are the contract; alter the dataset")
        .WithField("column", in.retype.begin()->first);
  }

  // ---- the data: columns over every file, in first-seen order ----
  std::vector<DataColumn> data;
  std::vector<std::string> data_names;
  for (const SampledFile& f : in.files) {
    for (const formats::InferredColumn& c : f.schema.columns) {
      auto it = std::find(data_names.begin(), data_names.end(), c.name);
      size_t idx = static_cast<size_t>(it - data_names.begin());
      if (it == data_names.end()) {
        data_names.push_back(c.name);
        DataColumn d;
        d.name = c.name;
        data.push_back(std::move(d));
      }
      DataColumn& d = data[idx];
      if (std::find(d.present.begin(), d.present.end(), f.name) == d.present.end()) {
        d.present.push_back(f.name);
      }
      if (f.schema.format == formats::Format::kParquet) d.text_read = false;
      if (!c.note.empty()) d.notes.emplace_back(f.name, c.note);
      if (c.all_null) continue;
      if (d.sample.empty()) d.sample = c.sample;
      if (d.typed.empty()) {
        d.unified = c.type;
      } else if (d.unified) {
        d.unified = UnifyTypes(*d.unified, c.type);
        if (!d.unified) d.disagree = true;
      }
      d.typed.emplace_back(f.name, c.type);
    }
  }

  // ---- ignore ----
  std::vector<bool> ignored(data.size(), false);
  for (const std::string& name : in.ignore) {
    int i = MatchColumn(data_names, name);
    if (i < 0) return UnknownColumn(name, "ignore");
    ignored[i] = true;
  }

  // ---- the target ----
  std::vector<Target> target;
  if (in.source == SchemaSourceKind::kInferred) {
    for (size_t i = 0; i < data.size(); ++i) {
      if (ignored[i]) continue;
      Target t;
      t.name = data[i].name;
      t.type = data[i].from();
      t.data = static_cast<int>(i);
      target.push_back(std::move(t));
    }
  } else if (in.source == SchemaSourceKind::kDeclared) {
    std::vector<std::string> seen;
    for (const auto& [name, text] : in.declared) {
      TARN_RETURN_NOT_OK(ValidateColumnName(name).WithContext("declared column"));
      const std::string& column = name;  // clang 14 cannot capture a structured binding
      if (std::any_of(seen.begin(), seen.end(),
                      [&](const std::string& s) { return EqualsIgnoreCase(s, column); })) {
        return Status::InvalidArgument("column '" + name + "' is declared twice")
            .WithField("column", name);
      }
      seen.push_back(name);
      TARN_ASSIGN_OR_RETURN(auto parsed, ParseDeclaredType(name, text));
      Target t;
      t.name = name;
      t.type = parsed.first;
      t.nullable = parsed.second;
      target.push_back(std::move(t));
    }
    if (target.empty()) return Status::InvalidArgument("declared schema has no columns");
  } else {
    for (const Field& f : in.dataset->schema.fields) {
      Target t;
      t.name = f.name;
      t.type = f.type;
      t.nullable = f.nullable;
      target.push_back(std::move(t));
    }
  }
  std::vector<std::string> target_names;
  for (const Target& t : target) target_names.push_back(t.name);
  std::vector<int> data_target(data.size(), -1);  // data column -> target, -1 none
  if (in.source != SchemaSourceKind::kInferred) {
    for (size_t i = 0; i < data.size(); ++i) {
      int t = MatchColumn(target_names, data[i].name);
      if (t < 0 || target[t].data >= 0) continue;
      data_target[i] = t;
      if (!ignored[i]) target[t].data = static_cast<int>(i);
    }
  } else {
    for (size_t t = 0; t < target.size(); ++t) data_target[target[t].data] = static_cast<int>(t);
  }

  // ---- retype ----
  for (const auto& [name, text] : in.retype) {
    int t = MatchColumn(target_names, name);
    if (t < 0) return UnknownColumn(name, "retype");
    TARN_ASSIGN_OR_RETURN(auto parsed, ParseDeclaredType(name, text));
    target[t].type = parsed.first;
    if (in.source == SchemaSourceKind::kDeclared) target[t].nullable = parsed.second;
    target[t].retyped = true;
  }

  // ---- entries and issues ----
  Plan plan;
  // The action of writing data column i's values of type `from` as `to`, with why it is
  // unsupported when it is.
  auto classify = [&](size_t i, const DataType& from, const DataType& to, std::string* why) {
    if (data[i].text_read &&
        (from.is_nested() || to.is_nested() || to.id() == TypeId::kVariant)) {
      return ClassifyTextRead(from, to, data[i].sample, why);
    }
    return ClassifyConversion(from, to, data[i].sample);
  };
  auto data_entry = [&](size_t i, PlanEntry* e) {
    const DataColumn& d = data[i];
    e->column = d.name;
    e->from = d.from().ToString();
    e->sample = d.sample;
  };
  // Issues that depend on the data alone: disagreements and all-null columns.
  auto data_issues = [&](size_t i, const Target* t) {
    const DataColumn& d = data[i];
    if (d.disagree) {
      std::vector<std::string> parts;
      bool castable = t != nullptr;
      for (const auto& [file, type] : d.typed) {
        parts.push_back(file + ": " + type.ToString());
        std::string why;
        if (t && classify(i, type, t->type, &why) == PlanAction::kUnsupported) castable = false;
      }
      // Inferred types that do not unify stop the write unless a person chose the type (retype)
      // or the target's type takes every file's values.
      bool chosen = t && (t->retyped || in.source != SchemaSourceKind::kInferred);
      plan.issues.push_back(Issue(codes::kSourcesDisagree, d.name,
                                  "the files disagree on its type: " + Join(parts, ", "),
                                  !(chosen && castable)));
    }
    if (d.present.size() < in.files.size()) {
      std::vector<std::string> absent;
      for (const SampledFile& f : in.files) {
        if (std::find(d.present.begin(), d.present.end(), f.name) == d.present.end()) {
          absent.push_back(f.name);
        }
      }
      bool not_null = t != nullptr && !t->nullable;
      plan.issues.push_back(Issue(codes::kSourcesDisagree, d.name,
                                  "not in every file (missing from " + Join(absent, ", ") +
                                      (not_null ? ")" : "; written as nulls there)"),
                                  not_null));
    }
    if (!d.notes.empty() && in.source == SchemaSourceKind::kInferred) {
      plan.issues.push_back(Issue(codes::kInferredNested, d.name, NotesText(d), false));
    }
    if (d.all_null()) {
      plan.issues.push_back(Issue(codes::kAllNull, d.name,
                                  in.source == SchemaSourceKind::kInferred
                                      ? "only nulls in the samples: inferred VARCHAR"
                                      : "only nulls in the samples",
                                  false));
    }
  };
  auto ignored_entry = [&](size_t i) {
    PlanEntry e;
    data_entry(i, &e);
    e.action = PlanAction::kIgnored;
    plan.entries.push_back(std::move(e));
    int t = data_target[i];
    if (t >= 0 && in.source != SchemaSourceKind::kInferred && target[t].data < 0 &&
        !target[t].nullable) {
      plan.issues.push_back(Issue(codes::kColumnMissing, data[i].name,
                                  "ignored, but the target declares it NOT NULL", true));
    }
    plan.ignored.push_back(data[i].name);
  };
  auto target_entry = [&](size_t ti) {
    const Target& t = target[ti];
    PlanEntry e;
    e.to = t.type.ToString();
    e.retyped = t.retyped;
    if (t.data < 0) {
      // An ignored data column of this name shows as ignored instead.
      for (size_t i = 0; i < data.size(); ++i) {
        if (data_target[i] == static_cast<int>(ti) && ignored[i]) return ignored_entry(i);
      }
      e.column = t.name;
      e.action = PlanAction::kMissing;
      plan.entries.push_back(std::move(e));
      plan.issues.push_back(
          Issue(codes::kColumnMissing, t.name,
                t.nullable ? "not in the data: written as nulls" : "not in the data and NOT NULL",
                !t.nullable));
      return;
    }
    const size_t i = static_cast<size_t>(t.data);
    if (in.source == SchemaSourceKind::kInferred) {
      Status valid = ValidateColumnName(t.name);
      if (!valid.ok()) {
        plan.issues.push_back(
            Issue(codes::kInvalidName, t.name,
                  valid.message() + ": ignore the column or rename it in the data", true));
      }
    }
    data_entry(i, &e);
    e.column = t.name;
    std::string why;
    e.action = classify(i, data[i].from(), t.type, &why);
    e.changes_values = e.action == PlanAction::kCast;
    plan.entries.push_back(e);
    if (e.action == PlanAction::kUnsupported) {
      std::string detail = "no conversion from " + e.from + " to " + e.to;
      if (!why.empty() && why != detail) detail += ": " + why;
      plan.issues.push_back(Issue(codes::kUnsupportedConversion, t.name, detail, true));
    }
    data_issues(i, &t);
  };

  if (in.source == SchemaSourceKind::kInferred) {
    for (size_t i = 0; i < data.size(); ++i) {
      if (ignored[i]) {
        ignored_entry(i);
      } else {
        target_entry(static_cast<size_t>(data_target[i]));
      }
    }
  } else {
    for (size_t t = 0; t < target.size(); ++t) target_entry(t);
    for (size_t i = 0; i < data.size(); ++i) {
      if (data_target[i] >= 0) continue;
      if (ignored[i]) {
        ignored_entry(i);
        continue;
      }
      PlanEntry e;
      data_entry(i, &e);
      e.action = PlanAction::kUndeclared;
      plan.entries.push_back(std::move(e));
      plan.issues.push_back(Issue(codes::kColumnUndeclared, data[i].name,
                                  "in the data but not in the target: ignore it or declare it",
                                  true));
    }
  }

  // ---- write schema ----
  if (in.source == SchemaSourceKind::kDataset) {
    plan.write_schema = in.dataset->schema;
  } else {
    int32_t id = 1;
    for (const Target& t : target) {
      Field f;
      f.name = t.name;
      f.type = t.type;
      f.nullable = t.nullable;
      f.field_id = id++;
      f.type = ClearNestedIds(f.type);
      plan.write_schema.fields.push_back(std::move(f));
    }
    int32_t last = 0;
    for (Field& f : plan.write_schema.fields) last = std::max(last, f.field_id);
    for (Field& f : plan.write_schema.fields) {
      TARN_ASSIGN_OR_RETURN(f.type, AssignNestedIds(f.type, &last));
    }
  }

  const std::string source(SchemaSourceName(in.source));
  plan.fingerprint = PlanFingerprint(
      in.target, SchemaModeName(in.mode), source, in.dataset ? in.dataset->uuid : std::string(),
      in.dataset ? in.dataset->schema_id : 0, plan.entries, plan.issues);
  return plan;
}

}  // namespace tarn::upload
