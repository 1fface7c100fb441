#include "sql/engine.h"

#include <malloc.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <tuple>

#include "catalog/catalog.h"
#include "catalog/error_codes.h"
#include "common/clock.h"
#include "common/discard.h"
#include "datafile/reader.h"
#include "objectstore/local/local_store.h"
#include "sql/counting_store.h"
#include "sql/direct.h"
#include "sql/duckdb_api.h"
#include "sql/error_codes.h"
#include "sql/quote.h"
#include "sql/session.h"
#include "sql/vectors.h"
#include "tarn/view.h"

namespace tarn::sql {

// ---- QuerySession ----

Result<std::shared_ptr<ResolvedDataset>> QuerySession::Resolve(const std::string& name,
                                                               const SnapshotSelector& asked) {
  SnapshotSelector at = asked;
  if (at.empty()) {
    if (auto pin = pinned.find(name); pin != pinned.end()) at.snapshot_id = pin->second;
  }
  const std::string key = name + "\n" + at.ToString();
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = resolved.find(key);
    if (it != resolved.end()) return it->second;
  }
  TARN_ASSIGN_OR_RETURN(DatasetInfo info, client->LoadDataset(name, at));
  auto ds = std::make_shared<ResolvedDataset>();
  ds->name = info.name.ToString();
  ds->snapshot_id = info.current_snapshot_id;
  ds->info = std::move(info);
  std::lock_guard<std::mutex> lock(mu);
  auto [it, inserted] = resolved.emplace(key, ds);
  if (inserted) {
    ReadReference ref;
    ref.dataset = ds->name;
    ref.dataset_uuid = ds->info.uuid;
    ref.snapshot_id = ds->snapshot_id.value_or(0);
    std::tie(ref.resolved_by, ref.tag) = ResolvedBy(at);
    reads.push_back(std::move(ref));
  }
  return it->second;
}

std::string QuerySession::Fail(const Status& st) {
  std::lock_guard<std::mutex> lock(mu);
  if (first_error.ok()) first_error = st;
  return st.message();
}

namespace {

// One in-memory DuckDB database and its connection, closed together.
class Database {
 public:
  explicit Database(const DuckDbApi& api) : api_(api) {}
  ~Database() {
    if (con_) api_.duckdb_disconnect(&con_);
    if (db_) api_.duckdb_close(&db_);
  }
  Status Open(const QueryOptions& options, int threads) {
    duckdb_config config = nullptr;
    if (api_.duckdb_create_config(&config) != DuckDBSuccess) {
      return Status::Internal("DuckDB: creating a configuration failed");
    }
    std::vector<std::pair<std::string, std::string>> settings = {
        {"threads", std::to_string(threads)},
        {"autoinstall_known_extensions", "false"},
        {"autoload_known_extensions", "false"},
        {"temp_directory", options.temp_directory},
    };
    if (!options.memory_limit.empty()) settings.push_back({"memory_limit", options.memory_limit});
    if (options.progress) {
      settings.push_back({"enable_progress_bar", "true"});
      settings.push_back({"enable_progress_bar_print", "false"});
    }
    for (const auto& [name, value] : settings) {
      if (api_.duckdb_set_config(config, name.c_str(), value.c_str()) != DuckDBSuccess) {
        api_.duckdb_destroy_config(&config);
        return Status::InvalidArgument("DuckDB refused the setting " + name + " = '" + value + "'");
      }
    }
    char* error = nullptr;
    duckdb_state state = api_.duckdb_open_ext(nullptr, &db_, config, &error);
    api_.duckdb_destroy_config(&config);
    if (state != DuckDBSuccess) {
      std::string msg = error ? error : "unknown error";
      if (error) api_.duckdb_free(error);
      db_ = nullptr;
      return Status::InvalidArgument("DuckDB could not start: " + msg);
    }
    if (api_.duckdb_connect(db_, &con_) != DuckDBSuccess) {
      con_ = nullptr;
      return Status::Internal("DuckDB: connecting failed");
    }
    return Status::OK();
  }
  duckdb_connection con() const { return con_; }

 private:
  const DuckDbApi& api_;
  duckdb_database db_ = nullptr;
  duckdb_connection con_ = nullptr;
};

// A materialized result, destroyed with its scope.
struct ResultHolder {
  const DuckDbApi& api;
  duckdb_result result{};
  bool valid = false;
  ~ResultHolder() {
    if (valid) api.duckdb_destroy_result(&result);
  }
};

// Runs a statement of the engine's own (setup): its error is an internal one unless `hint`.
Status Execute(const DuckDbApi& api, duckdb_connection con, const std::string& sql,
               std::string_view hint = {}) {
  ResultHolder r{api};
  r.valid = true;
  if (api.duckdb_query(con, sql.c_str(), &r.result) != DuckDBSuccess) {
    const char* e = api.duckdb_result_error(&r.result);
    std::string msg = e ? e : "unknown error";
    if (!hint.empty()) return Status::InvalidArgument(std::string(hint) + ": " + msg);
    return Status::Internal("DuckDB refused '" + sql + "': " + msg);
  }
  return Status::OK();
}

// The first value of the first row of a one-VARCHAR-column query.
Result<std::string> QueryText(const DuckDbApi& api, duckdb_connection con, const std::string& sql) {
  ResultHolder r{api};
  r.valid = true;
  if (api.duckdb_query(con, sql.c_str(), &r.result) != DuckDBSuccess) {
    const char* e = api.duckdb_result_error(&r.result);
    return Status::Internal(std::string("DuckDB: ") + (e ? e : "unknown error"));
  }
  duckdb_data_chunk chunk = api.duckdb_fetch_chunk(r.result);
  if (!chunk) return Status::Internal("DuckDB returned no row for: " + sql);
  std::string out;
  if (api.duckdb_data_chunk_get_size(chunk) > 0) {
    duckdb_vector v = api.duckdb_data_chunk_get_vector(chunk, 0);
    out =
        std::string(StringOf(*static_cast<const duckdb_string_t*>(api.duckdb_vector_get_data(v))));
  }
  api.duckdb_destroy_data_chunk(&chunk);
  return out;
}

struct TableRef {
  std::string catalog, schema, table;
  bool operator<(const TableRef& o) const {
    return std::tie(catalog, schema, table) < std::tie(o.catalog, o.schema, o.table);
  }
};

void CollectTables(const nlohmann::json& j, std::set<TableRef>* out) {
  if (j.is_object()) {
    auto type = j.find("type");
    if (type != j.end() && type->is_string() && *type == "BASE_TABLE") {
      TableRef ref{j.value("catalog_name", ""), j.value("schema_name", ""),
                   j.value("table_name", "")};
      if (!ref.catalog.empty() && !ref.schema.empty()) out->insert(ref);
      // A windowed task run's window, the one unqualified name tarn declares.
      if (ref.catalog.empty() && ref.schema.empty() && ref.table == kWindowRelation) {
        out->insert(ref);
      }
    }
    for (const auto& [key, value] : j.items()) CollectTables(value, out);
  } else if (j.is_array()) {
    for (const auto& value : j) CollectTables(value, out);
  }
}

// Parses the query with DuckDB's own parser (json_serialize_sql): one query, or a typed error.
// Returns the parse tree.
Result<nlohmann::json> ParseTree(const DuckDbApi& api, duckdb_connection con,
                                 std::string_view sql) {
  TARN_ASSIGN_OR_RETURN(
      std::string text,
      QueryText(api, con, "SELECT json_serialize_sql(" + QuoteLiteral(sql) + ")"));
  nlohmann::json tree = nlohmann::json::parse(text, nullptr, false);
  if (tree.is_discarded()) return Status::Internal("DuckDB's parse tree is not JSON");
  if (tree.value("error", false)) {
    std::string type = tree.value("error_type", "");
    std::string message = tree.value("error_message", "");
    if (type == "parser") {
      Status st = Status::Of(codes::kSqlSyntaxError, "syntax error: " + message);
      if (tree.contains("position") && tree["position"].is_string()) {
        st = st.WithField("position", tree["position"].get<std::string>());
      }
      return st;
    }
    return Status::Of(codes::kSqlNotAQuery,
                      "tarn sql runs queries (SELECT, WITH ..., VALUES, FROM ...): " + message);
  }
  const auto& statements = tree["statements"];
  if (!statements.is_array() || statements.size() != 1) {
    return Status::Of(codes::kSqlNotAQuery,
                      "tarn sql runs one query at a time; this text holds " +
                          std::to_string(statements.is_array() ? statements.size() : 0));
  }
  return tree;
}

// The three-part names a query reads (ParseTree's errors).
Result<std::set<TableRef>> Analyze(const DuckDbApi& api, duckdb_connection con,
                                   std::string_view sql) {
  TARN_ASSIGN_OR_RETURN(nlohmann::json tree, ParseTree(api, con, sql));
  std::set<TableRef> tables;
  CollectTables(tree["statements"], &tables);
  return tables;
}

// DuckDB's message as a typed error: "Binder Error: ...\n\nLINE 1: SELECT x ...\n  ^".
Status MapError(std::string message) {
  std::string kind;
  if (size_t colon = message.find(": "); colon != std::string::npos && colon < 40) {
    kind = message.substr(0, colon);
  }
  if (kind == "Parser Error") return Status::Of(codes::kSqlSyntaxError, message);
  if (kind == "Binder Error" || kind == "Catalog Error") {
    Status st = Status::Of(codes::kSqlBinderError, message);
    size_t line_at = message.find("\nLINE ");
    if (line_at != std::string::npos) {
      size_t number_end = message.find(':', line_at);
      size_t eol = message.find('\n', line_at + 1);
      if (number_end != std::string::npos && eol != std::string::npos) {
        std::string line = message.substr(line_at + 6, number_end - line_at - 6);
        size_t prefix = number_end + 2 - (line_at + 1);  // "LINE n: "
        size_t caret = message.find('^', eol);
        if (caret != std::string::npos && caret > eol && caret - eol - 1 >= prefix) {
          st = st.WithField("line", line)
                   .WithField("column", std::to_string(caret - eol - 1 - prefix + 1));
        }
      }
    }
    return st;
  }
  std::string type = kind.empty() ? "Error" : kind;
  if (kind == "IO Error" || kind == "Out of Memory Error") {
    return Status::Of(codes::kSqlResourcesExhausted, message).WithField("duckdb_error", type);
  }
  if (kind == "Permission Error") {
    message +=
        "\n(the query may read tarn datasets only; --allow-local-files lets it read "
        "local files)";
  }
  return Status::Of(codes::kSqlError, message).WithField("duckdb_error", type);
}

// Interrupts the query on the caller's cancel flag or past the deadline, and reports
// progress, from a thread of its own.
class Watchdog {
 public:
  Watchdog(const DuckDbApi& api, duckdb_connection con, const QueryOptions& options)
      : api_(api), con_(con), options_(options) {
    if (!options.cancel && options.timeout_s <= 0 && !options.progress) return;
    thread_ = std::thread([this] { Run(); });
  }
  ~Watchdog() { Stop(); }
  void Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  // Why the query was interrupted, if it was: sql_interrupted or sql_timeout.
  std::optional<Status> reason() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reason_;
  }

 private:
  void Run() {
    const Clock& clock = *Clock::Real();  // a query's timeout is real time
    const auto start = clock.SteadyNow();
    auto next_progress = start + std::chrono::milliseconds(250);
    std::unique_lock<std::mutex> lock(mu_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(50));
      if (done_) break;
      const auto now = clock.SteadyNow();
      if (!reason_) {
        if (options_.cancel && options_.cancel->load()) {
          reason_ = Status::Of(codes::kSqlInterrupted, "the query was interrupted");
        } else if (options_.timeout_s > 0 &&
                   now - start > std::chrono::duration<double>(options_.timeout_s)) {
          reason_ = Status::Of(codes::kSqlTimeout, "the query ran past its timeout of " +
                                                       std::to_string(options_.timeout_s) + " s");
        }
        if (reason_) api_.duckdb_interrupt(con_);
      }
      if (options_.progress && now >= next_progress) {
        next_progress = now + std::chrono::milliseconds(250);
        duckdb_query_progress_type p = api_.duckdb_query_progress(con_);
        if (p.percentage >= 0) {
          lock.unlock();
          options_.progress(std::min(1.0, p.percentage / 100.0));
          lock.lock();
        }
      }
    }
  }

  const DuckDbApi& api_;
  duckdb_connection con_;
  const QueryOptions& options_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  std::optional<Status> reason_;
  std::thread thread_;
};

// The attached catalogs and schemas declared so far, and the names.
struct Declared {
  std::set<std::string> catalogs, schemas, names;
};

// The schema `t` lives in (an attached in-memory catalog per workspace), created when new.
Result<std::string> EnsureSchema(const DuckDbApi& api, duckdb_connection con, const TableRef& t,
                                 Declared* declared) {
  const std::string name = t.catalog + "." + t.schema + "." + t.table;
  if (declared->catalogs.insert(t.catalog).second) {
    TARN_RETURN_NOT_OK(Execute(api, con, "ATTACH ':memory:' AS " + QuoteIdentifier(t.catalog),
                               "workspace '" + t.catalog +
                                   "' cannot be named in a query (a DuckDB name): read it "
                                   "with tarn_scan('" +
                                   name + "')"));
  }
  const std::string schema = QuoteIdentifier(t.catalog) + "." + QuoteIdentifier(t.schema);
  if (declared->schemas.insert(schema).second) {
    TARN_RETURN_NOT_OK(Execute(api, con, "CREATE SCHEMA " + schema));
  }
  return schema;
}

constexpr size_t kMaxViewDepth = 32;

// Declares one name the query (or a view it reads) uses: a dataset becomes a view over
// tarn_scan('w.c.d'); a view of dialect duckdb becomes a DuckDB view of its SQL, after the
// names that SQL reads (`stack`: the views being declared, to find a circle).
Status DeclareName(const DuckDbApi& api, duckdb_connection con, QuerySession& session,
                   const TableRef& t, std::vector<std::string>* stack, Declared* declared) {
  if (t.catalog.empty()) {
    // tarn_window: the rows the window's source added in the window (docs/design/tasks.md).
    if (!declared->names.insert(kWindowRelation).second) return Status::OK();
    if (!session.window) {
      return Status::Of(codes::kWindowUnbound,
                        std::string(kWindowRelation) +
                            " is a windowed task's window: only a task with a window source "
                            "(--window-source) may read it");
    }
    const QueryWindow& w = *session.window;
    std::string args = QuoteLiteral(w.source);
    if (w.to) args += ", snapshot := " + std::to_string(*w.to);
    args += ", added_after := " + std::to_string(w.after);
    return Execute(api, con,
                   "CREATE VIEW " + QuoteIdentifier(kWindowRelation) +
                       " AS SELECT * FROM tarn_scan(" + args + ")");
  }
  const std::string name = t.catalog + "." + t.schema + "." + t.table;
  if (declared->names.count(name)) return Status::OK();
  auto dataset = session.Resolve(name, {});
  if (dataset.ok()) {
    TARN_ASSIGN_OR_RETURN(std::string schema, EnsureSchema(api, con, t, declared));
    declared->names.insert(name);
    std::string args = QuoteLiteral(name);
    std::optional<std::string> source;
    if (auto inc = session.incremental.find(name); inc != session.incremental.end()) {
      args += ", row_ids := true";
      if (inc->second) args += ", added_after := " + std::to_string(*inc->second);
    } else {
      TARN_ASSIGN_OR_RETURN(source, DirectReadSource(session, **dataset));
    }
    return Execute(api, con,
                   "CREATE VIEW " + schema + "." + QuoteIdentifier(t.table) + " AS SELECT * FROM " +
                       source.value_or("tarn_scan(" + args + ")"));
  }
  if (!dataset.status().Is(codes::kDatasetNotFound)) {
    return dataset.status();
  }
  auto view = session.client->GetView(name);
  if (!view.ok()) {
    if (view.status().Is(codes::kViewNotFound)) {
      return Status::Of(codes::kDatasetNotFound, "no dataset or view named '" + name + "' exists")
          .WithField("dataset", name);
    }
    return view.status();
  }
  const ViewVersion& v = view->current;
  if (v.dialect != kDuckDbDialect) {
    return Status::Of(codes::kUnsupportedDialect, "view '" + name + "' is written in " + v.dialect +
                                                      "; tarn sql runs views of dialect duckdb")
        .WithField("view", name)
        .WithField("dialect", v.dialect);
  }
  if (std::find(stack->begin(), stack->end(), name) != stack->end() ||
      stack->size() >= kMaxViewDepth) {
    std::string path;
    for (const auto& s : *stack) path += s + " -> ";
    return Status::Of(
               codes::kViewCycle,
               stack->size() >= kMaxViewDepth
                   ? "views nest deeper than " + std::to_string(kMaxViewDepth) + ": " + path + name
                   : "views read each other in a circle: " + path + name)
        .WithField("view", name);
  }
  auto inner = Analyze(api, con, v.sql);
  if (!inner.ok()) return inner.status().WithContext("view '" + name + "'");
  stack->push_back(name);
  for (const TableRef& u : *inner) {
    TARN_RETURN_NOT_OK(DeclareName(api, con, session, u, stack, declared));
  }
  stack->pop_back();
  TARN_ASSIGN_OR_RETURN(std::string schema, EnsureSchema(api, con, t, declared));
  declared->names.insert(name);
  {
    std::lock_guard<std::mutex> lock(session.mu);
    session.views.push_back(name);
  }
  ResultHolder r{api};
  r.valid = true;
  const std::string create =
      "CREATE VIEW " + schema + "." + QuoteIdentifier(t.table) + " AS " + v.sql;
  if (api.duckdb_query(con, create.c_str(), &r.result) != DuckDBSuccess) {
    const char* e = api.duckdb_result_error(&r.result);
    return MapError(e ? e : "unknown error").WithContext("view '" + name + "'");
  }
  return Status::OK();
}

// Sets up the names the query reads: `w.c.d` becomes a view (over tarn_scan('w.c.d') for a
// dataset, of its SQL for a tarn view) in an attached in-memory catalog `w`, schema `c`.
Status DeclareDatasets(const DuckDbApi& api, duckdb_connection con, QuerySession& session,
                       const std::set<TableRef>& tables) {
  Declared declared;
  std::vector<std::string> stack;
  for (const TableRef& t : tables) {
    TARN_RETURN_NOT_OK(DeclareName(api, con, session, t, &stack, &declared));
  }
  return Status::OK();
}

// Records the run on every view the query read (execution metadata); a failure to record does
// not fail the query that ran.
void RecordViewRuns(QuerySession& session, int64_t rows, double seconds) {
  for (const auto& name : session.views) {
    DiscardError(session.client->RecordViewRun(name, rows, seconds),
                 "recording a run of view " + name);
  }
}

}  // namespace

Status CheckQueryText(std::string_view sql) {
  auto api = LoadDuckDb();
  if (!api.ok()) return Status::OK();
  Database db(**api);
  QueryOptions options;
  TARN_RETURN_NOT_OK(db.Open(options, 1));
  return Analyze(**api, db.con(), sql).status();
}

namespace {

// Whether an expression tree holds what an incremental refresh cannot run row by row: an
// aggregate (by DuckDB's own list of aggregate functions), a window, a subquery, a COLUMNS(...)
// expansion, or a name of tarn's lineage columns.
bool BlocksIncremental(const nlohmann::json& j, const std::set<std::string>& aggregates) {
  if (j.is_array()) {
    for (const auto& v : j) {
      if (BlocksIncremental(v, aggregates)) return true;
    }
    return false;
  }
  if (!j.is_object()) return false;
  const std::string cls = j.value("class", "");
  if (cls == "WINDOW" || cls == "SUBQUERY") return true;
  if (cls == "FUNCTION") {
    std::string fn = j.value("function_name", "");
    for (char& ch : fn) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (aggregates.count(fn) || j.value("distinct", false)) return true;
    if (j.contains("filter") && !j["filter"].is_null()) return true;
  }
  if (cls == "STAR" && (j.value("columns", false) || (j.contains("expr") && !j["expr"].is_null())))
    return true;
  const std::string alias = j.value("alias", "");
  if (alias == kSourceRowIdColumn || alias == kRowIdColumnName) return true;
  if (cls == "COLUMN_REF" && j.contains("column_names") && j["column_names"].is_array()) {
    for (const auto& n : j["column_names"]) {
      if (n.is_string() && (n == kSourceRowIdColumn || n == kRowIdColumnName)) return true;
    }
  }
  for (const auto& [key, value] : j.items()) {
    if (BlocksIncremental(value, aggregates)) return true;
  }
  return false;
}

// DuckDB's aggregate function names (lower case), read once per process: the library loaded
// does not change.
Result<const std::set<std::string>*> AggregateNames(const DuckDbApi& api, duckdb_connection con) {
  static std::mutex mu;
  static std::set<std::string>* names = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (names) return names;
  TARN_ASSIGN_OR_RETURN(
      std::string list,
      QueryText(api, con,
                "SELECT string_agg(DISTINCT lower(function_name), ',') FROM duckdb_functions() "
                "WHERE function_type = 'aggregate'"));
  auto* out = new std::set<std::string>();
  for (size_t start = 0; start <= list.size();) {
    size_t comma = list.find(',', start);
    if (comma == std::string::npos) comma = list.size();
    out->insert(list.substr(start, comma - start));
    start = comma + 1;
  }
  names = out;
  return names;
}

bool NullOrAbsent(const nlohmann::json& node, const char* key) {
  return !node.contains(key) || node[key].is_null();
}

bool EmptyOrAbsent(const nlohmann::json& node, const char* key) {
  return !node.contains(key) || node[key].empty();
}

}  // namespace

Result<std::optional<IncrementalQuery>> IncrementalForm(std::string_view sql) {
  TARN_ASSIGN_OR_RETURN(const DuckDbApi* api, LoadDuckDb());
  Database db(*api);
  QueryOptions options;
  TARN_RETURN_NOT_OK(db.Open(options, 1));
  TARN_ASSIGN_OR_RETURN(nlohmann::json tree, ParseTree(*api, db.con(), sql));
  const std::optional<IncrementalQuery> full;
  nlohmann::json& node = tree["statements"][0]["node"];
  if (node.value("type", "") != "SELECT_NODE" || !EmptyOrAbsent(node, "modifiers") ||
      !EmptyOrAbsent(node, "group_expressions") || !EmptyOrAbsent(node, "group_sets") ||
      !NullOrAbsent(node, "having") || !NullOrAbsent(node, "qualify") ||
      !NullOrAbsent(node, "sample") ||
      node.value("aggregate_handling", "") != "STANDARD_HANDLING") {
    return full;
  }
  if (node.contains("cte_map") && !EmptyOrAbsent(node["cte_map"], "map")) return full;
  const nlohmann::json& from = node["from_table"];
  if (!from.is_object() || from.value("type", "") != "BASE_TABLE" ||
      !NullOrAbsent(from, "sample") || !NullOrAbsent(from, "at_clause") ||
      !EmptyOrAbsent(from, "column_name_alias")) {
    return full;
  }
  IncrementalQuery out;
  out.source = from.value("catalog_name", "") + "." + from.value("schema_name", "") + "." +
               from.value("table_name", "");
  if (!ParseDatasetName(out.source).ok()) return full;
  TARN_ASSIGN_OR_RETURN(const std::set<std::string>* aggregates, AggregateNames(*api, db.con()));
  if (BlocksIncremental(node["select_list"], *aggregates) ||
      BlocksIncremental(node["where_clause"], *aggregates)) {
    return full;
  }
  // SELECT <list> FROM source WHERE ... becomes SELECT <list> (each * without the row id),
  // _tarn_row_id AS _tarn_source_row_id FROM source WHERE ...
  for (auto& e : node["select_list"]) {
    if (e.value("class", "") == "STAR") e["exclude_list"].push_back(kRowIdColumnName);
  }
  node["select_list"].push_back({{"class", "COLUMN_REF"},
                                 {"type", "COLUMN_REF"},
                                 {"alias", kSourceRowIdColumn},
                                 {"query_location", 0},
                                 {"column_names", {kRowIdColumnName}}});
  TARN_ASSIGN_OR_RETURN(
      out.sql,
      QueryText(*api, db.con(), "SELECT json_deserialize_sql(" + QuoteLiteral(tree.dump()) + ")"));
  return std::optional<IncrementalQuery>(std::move(out));
}

void TuneAllocatorForQueries() {
  mallopt(M_MMAP_THRESHOLD, 256 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
}

Result<QueryResult> RunQuery(Client& client, std::string_view sql, const QueryOptions& options,
                             const std::function<Status(const RecordBatch&)>& fn) {
  return RunQueryOwned(client, sql, options, [&](RecordBatch&& batch) { return fn(batch); });
}

Result<QueryResult> RunQueryOwned(Client& client, std::string_view sql, const QueryOptions& options,
                                  const std::function<Status(RecordBatch&&)>& fn) {
  TARN_ASSIGN_OR_RETURN(const DuckDbApi* api_ptr, LoadDuckDb());
  const DuckDbApi& api = *api_ptr;
  const Stopwatch watch(*Clock::Real());  // the run time recorded for the views it read
  QuerySession session;
  session.api = &api;
  session.pinned = options.pinned_snapshots;
  session.incremental = options.incremental_reads;
  session.window = options.window;
  session.client = &client;
  std::optional<CountingStore> counting;
  if (auto* catalog = dynamic_cast<Catalog*>(&client)) {
    counting.emplace(catalog->warehouse());
    session.warehouse = &*counting;
    if (auto* local = dynamic_cast<LocalObjectStore*>(&catalog->warehouse_files());
        local && options.direct_reads) {
      session.direct_root = local->root();
    }
  }
  session.threads = options.threads > 0
                        ? options.threads
                        : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));

  Database db(api);
  TARN_RETURN_NOT_OK(db.Open(options, session.threads));
  duckdb_connection con = db.con();
  TARN_RETURN_NOT_OK(RegisterTarnScan(&session, con));
  TARN_ASSIGN_OR_RETURN(auto tables, Analyze(api, con, sql));
  TARN_RETURN_NOT_OK(DeclareDatasets(api, con, session, tables));
  if (!options.allow_local_files) {
    // The query reads tarn's datasets only: the files of the direct reads, nothing else.
    if (!session.direct_paths.empty()) {
      TARN_RETURN_NOT_OK(
          Execute(api, con, "SET allowed_paths = " + QuoteList(session.direct_paths)));
    }
    TARN_RETURN_NOT_OK(Execute(api, con, "SET enable_external_access = false"));
  }
  TARN_RETURN_NOT_OK(Execute(api, con, "SET lock_configuration = true"));

  // Any error from here on: tarn's own (from a scan callback) explains it best.
  auto fail = [&](const Status& duck) -> Status {
    std::lock_guard<std::mutex> lock(session.mu);
    return session.first_error.ok() ? duck : session.first_error;
  };
  const std::string text(sql);
  duckdb_prepared_statement stmt = nullptr;
  if (api.duckdb_prepare(con, text.c_str(), &stmt) != DuckDBSuccess) {
    const char* e = api.duckdb_prepare_error(stmt);
    Status st = MapError(e ? e : "unknown error");
    api.duckdb_destroy_prepare(&stmt);
    return fail(st);
  }
  Watchdog watchdog(api, con, options);
  auto interrupted = [&](Status st) -> Status {
    if (auto why = watchdog.reason()) return *why;
    return fail(st);
  };
  duckdb_pending_result pending = nullptr;
  duckdb_state state = api.duckdb_pending_prepared_streaming(stmt, &pending);
  api.duckdb_destroy_prepare(&stmt);
  if (state != DuckDBSuccess) {
    const char* e = api.duckdb_pending_error(pending);
    Status st = MapError(e ? e : "unknown error");
    api.duckdb_destroy_pending(&pending);
    return interrupted(st);
  }
  for (;;) {
    duckdb_pending_state ps = api.duckdb_pending_execute_task(pending);
    if (ps == DUCKDB_PENDING_RESULT_READY) break;
    if (ps == DUCKDB_PENDING_ERROR) {
      const char* e = api.duckdb_pending_error(pending);
      Status st = MapError(e ? e : "unknown error");
      api.duckdb_destroy_pending(&pending);
      return interrupted(st);
    }
  }
  ResultHolder result{api};
  state = api.duckdb_execute_pending(pending, &result.result);
  result.valid = true;
  api.duckdb_destroy_pending(&pending);
  if (state != DuckDBSuccess) {
    const char* e = api.duckdb_result_error(&result.result);
    return interrupted(MapError(e ? e : "unknown error"));
  }

  QueryResult out;
  const idx_t ncols = api.duckdb_column_count(&result.result);
  std::vector<duckdb_logical_type> logical(ncols);
  struct TypesGuard {
    const DuckDbApi& api;
    std::vector<duckdb_logical_type>& types;
    ~TypesGuard() {
      for (auto& t : types) {
        if (t) api.duckdb_destroy_logical_type(&t);
      }
    }
  } guard{api, logical};
  for (idx_t c = 0; c < ncols; ++c) {
    logical[c] = api.duckdb_column_logical_type(&result.result, c);
    Field f;
    const char* name = api.duckdb_column_name(&result.result, c);
    f.name = name ? name : "";
    TARN_ASSIGN_OR_RETURN(f.type, TarnTypeOf(api, logical[c], f.name));
    f.field_id = static_cast<int32_t>(c) + 1;
    out.schema.fields.push_back(std::move(f));
  }
  if (options.on_start) {
    std::vector<ReadReference> reads;
    {
      std::lock_guard<std::mutex> lock(session.mu);
      reads = session.reads;
    }
    TARN_RETURN_NOT_OK(options.on_start(out.schema, reads));
  }
  for (;;) {
    duckdb_data_chunk chunk = api.duckdb_fetch_chunk(result.result);
    if (!chunk) break;
    const int64_t n = static_cast<int64_t>(api.duckdb_data_chunk_get_size(chunk));
    RecordBatch batch;
    batch.schema = out.schema;
    batch.num_rows = n;
    Status st;
    for (idx_t c = 0; c < ncols && st.ok(); ++c) {
      Column col(out.schema.fields[c].type);
      st = ReadVector(api, api.duckdb_data_chunk_get_vector(chunk, c), logical[c], n, &col);
      batch.columns.push_back(std::move(col));
    }
    api.duckdb_destroy_data_chunk(&chunk);
    TARN_RETURN_NOT_OK(st);
    if (n == 0) continue;
    out.rows += n;
    TARN_RETURN_NOT_OK(fn(std::move(batch)));
  }
  if (const char* e = api.duckdb_result_error(&result.result)) {
    return interrupted(MapError(e));
  }
  watchdog.Stop();
  if (auto why = watchdog.reason()) return *why;
  {
    std::lock_guard<std::mutex> lock(session.mu);
    if (!session.first_error.ok()) return session.first_error;
    out.reads = session.reads;
  }
  if (counting) {
    out.files_read = counting->files_opened();
    out.bytes_read = counting->bytes_read();
    out.direct_files = static_cast<int64_t>(session.direct_paths.size());
  }
  RecordViewRuns(session, out.rows, watch.Seconds());
  return out;
}

}  // namespace tarn::sql
