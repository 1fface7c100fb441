// What the upload commands (`tarn push`, `plan`, `show`, `abandon`) parse and print, kept apart
// from their I/O so it can be tested: the --declare/--type arguments, the answers typed at the
// plan prompt, sizes, durations and the progress line, the plan table, the conversion lines of
// an append, and the JSON of contracts and commit results.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "render/style.h"
#include "sdk/upload_json.h"
#include "tarn/status.h"
#include "tarn/upload.h"

namespace tarn::render {

// `--declare C:T` arguments, in order. kInvalidArgument for a missing ':', an empty name or type,
// or a column declared twice.
Result<std::vector<std::pair<std::string, std::string>>> ParseDeclarations(
    const std::vector<std::string>& args);
// `--type C=T` arguments. kInvalidArgument for a missing '=', an empty name or type, or a
// column given twice with different types.
Result<std::map<std::string, std::string>> ParseTypeAssignments(
    const std::vector<std::string>& args);

// One line typed at the plan prompt.
struct PromptAnswer {
  enum class Kind { kAccept, kStop, kEdit };
  Kind kind = Kind::kAccept;
  std::map<std::string, std::string> retype;  // col=TYPE
  std::vector<std::string> ignore;            // -col
};
// "" accepts, "q" (or quit/stop) stops, otherwise whitespace- or comma-separated `col=TYPE` and
// `-col` items (a type may hold spaces and commas inside parentheses: `amount=DECIMAL(10, 2)`).
// kInvalidArgument, naming the item, for anything else.
Result<PromptAnswer> ParsePromptLine(const std::string& line);

// 686.5 KB, 1.2 GB, 512 B (powers of 1000).
std::string FormatBytes(int64_t bytes);
// 0:07, 12:03, 1:02:03.
std::string FormatDuration(double seconds);
// "  name  12.3 MB / 686.5 MB  45.1 MB/s  ETA 0:14" (no total: "  name  12.3 MB  45.1 MB/s").
std::string ProgressText(const std::string& name, int64_t done, int64_t total, double elapsed_s);

// The plan of a contract as table rows (column, sample, type, note), the way a person checks a
// new dataset's types: the sample beside the type, and a note for what the type changes.
std::vector<std::vector<std::string>> PlanRows(const Contract& contract);
// The conversions an append or overwrite makes: one line per column whose action is not keep,
// e.g. "cast     published  VARCHAR -> TIMESTAMP[us]  (values converted)".
std::vector<std::string> ConversionLines(const Contract& contract);
// "new, types read from your data", "exists; appending with the dataset's types", ...
std::string TargetSummary(const Contract& contract);
// A blocking issue as the error a command returns (exit 3): kInvalidArgument for the refusals of
// data (column_undeclared, column_missing, sources_disagree, format_unreadable), else
// kFailedPrecondition; fields code, column, contract_id.
Status BlockingIssueError(const Contract& contract);

// The JSON of the HTTP API (api/contract_wire.h), plus "blocking" for a contract and
// "contract_id" for a commit result.
nlohmann::json ContractJson(const Contract& contract);
nlohmann::json CommitJson(const UploadCommitResult& result, const std::string& contract_id);

}  // namespace tarn::render
