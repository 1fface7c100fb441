// `tarn sql`: a query over tarn's datasets, run here by DuckDB through the SDK's Client::Query
// and Client::QueryInto (src/sql, docs/design/sql.md).
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "cli/catalog_common.h"
#include "cli/cli.h"
#include "cli/dataset_render.h"
#include "common/clock.h"
#include "objectstore/object_store.h"
#include "parquet/writer.h"
#include "render/cell_text.h"
#include "render/json_lines.h"
#include "sql/engine.h"
#include "types/json_render.h"
#include "types/value_text.h"

namespace tarn::cli {

namespace {

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled. NULL is an
// empty field.
void AppendCsvField(std::string_view v, std::string* out) {
  if (v.find_first_of(",\"\r\n") == std::string_view::npos) {
    out->append(v);
    return;
  }
  out->push_back('"');
  for (char c : v) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

struct SqlArgs {
  std::string query;
  std::string file;
  bool csv = false;
  std::string output;
  int64_t max_rows = -1;  // -1: 40 at a terminal, all otherwise
  double timeout_s = 0;
  std::string memory_limit;
  int threads = 0;
  bool allow_local_files = false;
  bool no_direct_reads = false;
  bool stats = false;
  // --into
  std::string into;
  bool create = false, append = false, overwrite = false;
  std::string partition, sort;
  CommitArgs commit;
};

Result<std::string> QueryText(const SqlArgs& a) {
  if (!a.query.empty() && !a.file.empty()) {
    return Status::InvalidArgument("give the query as an argument or with -f, not both");
  }
  std::string text;
  if (!a.file.empty()) {
    std::ifstream in(a.file == "-" ? "/dev/stdin" : a.file, std::ios::binary);
    if (!in) return Status::NotFound("cannot read the query file " + a.file);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } else if (!a.query.empty()) {
    text = a.query;
  } else {
    if (::isatty(0)) {
      return Status::InvalidArgument(
          "give a query: tarn sql 'SELECT ...', tarn sql -f query.sql, or the query on stdin");
    }
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  if (text.find_first_not_of(" \t\r\n;") == std::string::npos) {
    return Status::InvalidArgument("the query is empty");
  }
  return text;
}

// Where DuckDB spills past --memory-limit: <catalog>/tmp/tarn-sql-<pid> for an embedded
// catalog, else $TMPDIR/tarn-sql-<pid>. The parent is made here (DuckDB makes one level only);
// the directory is removed after the query, and the ones of processes that died (kill -9)
// are removed by the next query.
class SpillDirectory {
 public:
  explicit SpillDirectory(const std::string& target) {
    std::filesystem::path base;
    if (target.rfind("http://", 0) != 0 && target.rfind("https://", 0) != 0) {
      base = std::filesystem::path(target) / "tmp";
    } else {
      const char* tmp = std::getenv("TMPDIR");
      base = tmp && *tmp ? tmp : "/tmp";
    }
    std::error_code ec;
    std::filesystem::create_directories(base, ec);
    for (const auto& entry : std::filesystem::directory_iterator(base, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("tarn-sql-", 0) != 0) continue;
      const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + 9));
      if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) {
        std::filesystem::remove_all(entry.path(), ec);
      }
    }
    path_ = (base / ("tarn-sql-" + std::to_string(::getpid()))).string();
  }
  ~SpillDirectory() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

nlohmann::json ReadsJson(const std::vector<ReadReference>& reads) {
  return nlohmann::json::parse(Receipt::Of(reads).ToJson())["read_sources"];
}

// "version", "tag nightly", ...
std::string HowResolved(const ReadReference& r) {
  return r.tag.empty() ? r.resolved_by : r.resolved_by + " " + r.tag;
}

// --into: the result becomes one snapshot of a dataset, with a receipt of what it read.
Status RunInto(const SqlArgs& a, const GlobalOptions& g, Client& client, const std::string& text,
               const QueryOptions& options) {
  if (a.csv || !a.output.empty()) {
    return Status::InvalidArgument("--into writes a dataset: --csv and --output do not apply");
  }
  if ((a.create ? 1 : 0) + (a.append ? 1 : 0) + (a.overwrite ? 1 : 0) > 1) {
    return Status::InvalidArgument("give one of --create, --append and --overwrite");
  }
  if (!a.create && (!a.partition.empty() || !a.sort.empty())) {
    return Status::InvalidArgument("--partition and --sort shape a new dataset: use --create");
  }
  QueryIntoOptions into;
  into.target = a.into;
  into.mode = a.create      ? QueryIntoMode::kCreate
              : a.overwrite ? QueryIntoMode::kOverwrite
                            : QueryIntoMode::kAppend;
  into.meta = a.commit.Meta(client);
  into.partition_spec = a.partition;
  into.sort_order = a.sort;
  TARN_ASSIGN_OR_RETURN(auto r, client.QueryInto(text, options, into));
  if (g.json) {
    nlohmann::json j = {{"dataset", a.into},
                        {"created", r.created},
                        {"rows", r.query.rows},
                        {"snapshot", r.snapshot ? SnapshotJson(*r.snapshot) : nlohmann::json()},
                        {"reads", ReadsJson(r.query.reads)}};
    std::cout << Dump(j) << "\n";
    return Status::OK();
  }
  if (r.created) std::cout << "created " << a.into << "\n";
  if (r.snapshot) {
    std::cout << SnapshotLine(*r.snapshot) << "\n";
  } else {
    std::cout << "no rows: nothing committed\n";
  }
  for (const ReadReference& ref : r.query.reads) {
    std::cout << "  read " << ref.dataset << " at snapshot " << ref.snapshot_id << " ("
              << HowResolved(ref) << ")\n";
  }
  return Status::OK();
}

Status RunSql(const SqlArgs& a, const GlobalOptions& g) {
  int formats = (g.json ? 1 : 0) + (a.csv ? 1 : 0) + (a.output.empty() ? 0 : 1);
  if (formats > 1) return Status::InvalidArgument("give one of --json, --csv and --output");
  if (a.timeout_s < 0) return Status::InvalidArgument("--timeout must be >= 0");
  TARN_ASSIGN_OR_RETURN(std::string text, QueryText(a));
  sql::TuneAllocatorForQueries();
  CatalogOptions* co = SharedCatalogOptions();
  TARN_ASSIGN_OR_RETURN(std::string target, CatalogTarget(*co));
  TARN_ASSIGN_OR_RETURN(auto client, OpenClient(*co));

  const bool terminal_out = ::isatty(1) != 0;
  const bool terminal_err = ::isatty(2) != 0;
  QueryOptions options;
  options.threads = a.threads;
  options.memory_limit = a.memory_limit;
  SpillDirectory spill(target);
  options.temp_directory = spill.path();
  options.timeout_s = a.timeout_s;
  options.allow_local_files = a.allow_local_files;
  options.direct_reads = !a.no_direct_reads;
  InterruptGuard::Reset();
  options.cancel = &InterruptGuard::Flag();
  bool progress_shown = false;
  if (terminal_err) {
    options.progress = [&progress_shown](double f) {
      std::fprintf(stderr, "\r\033[Kquery: %3d%%", static_cast<int>(f * 100));
      std::fflush(stderr);
      progress_shown = true;
    };
  }
  auto clear_progress = [&] {
    if (progress_shown) std::fprintf(stderr, "\r\033[K");
    progress_shown = false;
  };

  if (!a.into.empty()) {
    InterruptGuard guard;
    Status st = RunInto(a, g, *client, text, options);
    clear_progress();
    return st;
  }
  if (a.create || a.append || a.overwrite || !a.partition.empty() || !a.sort.empty()) {
    return Status::InvalidArgument(
        "--create, --append, --overwrite, --partition and --sort go "
        "with --into");
  }
  const bool table = !g.json && !a.csv && a.output.empty();
  const int64_t limit = a.max_rows >= 0 ? a.max_rows : (table && terminal_out ? 40 : 0);
  std::vector<std::vector<std::string>> rows;
  int64_t not_shown = 0;
  render::JsonLines json_lines(WriteStdout);
  std::unique_ptr<parquet::FileWriter> writer;
  bool csv_header = false;
  std::string line;

  auto open_writer = [&](const Schema& schema) -> Status {
    TARN_ASSIGN_OR_RETURN(auto sink, CreateOutputFile(a.output));
    TARN_ASSIGN_OR_RETURN(writer, parquet::FileWriter::Open(std::move(sink), schema));
    return Status::OK();
  };
  auto write_csv_header = [&](const Schema& schema) -> Status {
    csv_header = true;
    line.clear();
    for (size_t c = 0; c < schema.fields.size(); ++c) {
      if (c) line.push_back(',');
      AppendCsvField(schema.fields[c].name, &line);
    }
    line.push_back('\n');
    return WriteStdout(line);
  };

  InterruptGuard guard;
  const Stopwatch watch(*Clock::Real());
  auto result = client->Query(text, options, [&](const RecordBatch& batch) -> Status {
    clear_progress();
    if (!a.output.empty()) {
      if (!writer) TARN_RETURN_NOT_OK(open_writer(batch.schema));
      return writer->Write(batch);
    }
    if (g.json) {
      return json_lines.Write(batch, batch.num_rows);
    }
    if (a.csv) {
      if (!csv_header) TARN_RETURN_NOT_OK(write_csv_header(batch.schema));
      line.clear();
      for (int64_t r = 0; r < batch.num_rows; ++r) {
        for (size_t c = 0; c < batch.columns.size(); ++c) {
          if (c) line.push_back(',');
          if (batch.columns[c].IsValid(r)) AppendCsvField(ValueText(batch.columns[c], r), &line);
        }
        line.push_back('\n');
      }
      return WriteStdout(line);
    }
    for (int64_t r = 0; r < batch.num_rows; ++r) {
      if (limit > 0 && static_cast<int64_t>(rows.size()) >= limit) {
        not_shown += batch.num_rows - r;
        break;
      }
      std::vector<std::string> cells;
      for (const Column& c : batch.columns) {
        cells.push_back(render::CellText(c, r));
      }
      rows.push_back(std::move(cells));
    }
    return Status::OK();
  });
  clear_progress();
  if (!result.ok()) {
    if (writer) {
      // A partial file is never left behind as if it were the result.
      std::remove(a.output.c_str());
    }
    return result.status();
  }
  if (a.stats) {
    const double seconds = watch.Seconds();
    std::string sources;
    for (const ReadReference& r : result->reads) {
      sources += (sources.empty() ? "" : ", ") + r.dataset + "@" + std::to_string(r.snapshot_id) +
                 " (" + HowResolved(r) + ")";
    }
    std::fprintf(stderr, "sql: %lld rows in %.3f s; read %s%s\n",
                 static_cast<long long>(result->rows), seconds,
                 sources.empty() ? "no dataset" : sources.c_str(),
                 client->remote()
                     ? ""
                     : ("; " + std::to_string(result->files_read) + " files" +
                        (result->direct_files > 0 ? " (" + std::to_string(result->direct_files) +
                                                        " read by DuckDB's Parquet reader)"
                                                  : std::string()) +
                        ", " + std::to_string(result->bytes_read) + " bytes through tarn's reader")
                           .c_str());
  }
  if (!a.output.empty()) {
    if (!writer) TARN_RETURN_NOT_OK(open_writer(result->schema));
    TARN_RETURN_NOT_OK(writer->Close());
    std::cerr << "wrote " << result->rows << " row" << (result->rows == 1 ? "" : "s") << " to "
              << a.output << "\n";
    return Status::OK();
  }
  if (a.csv && !csv_header) return write_csv_header(result->schema);
  if (table) {
    std::vector<std::string> header;
    for (const Field& f : result->schema.fields) header.push_back(f.name);
    PrintTable(header, rows);
    if (not_shown > 0) {
      std::cout << "(" << not_shown << " more row" << (not_shown == 1 ? "" : "s")
                << " not shown; --max-rows 0 shows all)\n";
    } else if (terminal_out) {
      std::cout << "(" << result->rows << " row" << (result->rows == 1 ? "" : "s") << ")\n";
    }
  }
  return Status::OK();
}

}  // namespace

void RegisterSqlCommand(CLI::App* app, GlobalOptions* global) {
  auto a = std::make_shared<SqlArgs>();
  auto* cmd = app->add_subcommand(
      "sql",
      "Run a SQL query (DuckDB's dialect) over datasets: FROM w.c.d, or tarn_scan('w.c.d', "
      "snapshot := N | tag := 'T' | at := TIMESTAMP '...', filter := '...', row_ids := true)");
  cmd->add_option("QUERY", a->query, "The query (else -f FILE, else stdin)");
  cmd->add_option("-f,--file", a->file, "Read the query from FILE ('-': stdin)");
  cmd->add_flag("--csv", a->csv, "CSV with a header row (NULL: an empty field)");
  cmd->add_option("--output", a->output, "Write the result to FILE.parquet (tarn's writer)");
  cmd->add_option("--max-rows", a->max_rows,
                  "Rows shown in the table (default 40 at a terminal, else all; 0: all)");
  cmd->add_option("--timeout", a->timeout_s, "Stop the query after SECONDS (exit 124)");
  cmd->add_option("--memory-limit", a->memory_limit,
                  "DuckDB's memory limit, e.g. 2GB; past it DuckDB spills to a temporary "
                  "directory (under the embedded catalog, else $TMPDIR)");
  cmd->add_option("--threads", a->threads, "DuckDB's threads (default: one per core)");
  cmd->add_flag("--allow-local-files", a->allow_local_files,
                "Let the query read local files (read_parquet, read_csv ...)");
  cmd->add_flag("--no-direct-reads", a->no_direct_reads,
                "Read every dataset with tarn's reader (tarn_scan), also where DuckDB's own "
                "Parquet reader would read its files directly (embedded, local warehouse, no "
                "deleted rows)");
  cmd->add_option("--into", a->into,
                  "Write the result into workspace.collection.dataset as one snapshot whose "
                  "receipt lists what the query read");
  cmd->add_flag("--create", a->create, "--into a new dataset of the result's columns");
  cmd->add_flag("--append", a->append, "--into an existing dataset, adding rows (the default)");
  cmd->add_flag("--overwrite", a->overwrite, "--into an existing dataset, replacing its rows");
  cmd->add_option("--partition", a->partition, "With --create: the partition spec");
  cmd->add_option("--sort", a->sort, "With --create: the sort order");
  AddCommitArgs(cmd, &a->commit, true);
  cmd->add_flag("--stats", a->stats,
                "Print to stderr what the query read (datasets and snapshots, files, bytes) "
                "and how long it took");
  SetCommand(cmd, [a, global]() -> Status { return RunSql(*a, *global); });
}

}  // namespace tarn::cli
