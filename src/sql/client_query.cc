// Client::Query and Client::QueryInto (include/tarn/client.h): the SDK's entry points to the
// engine, part of tarn::tarn.
#include "sql/engine.h"
#include "sql/into.h"
#include "tarn/client.h"

namespace tarn {

Result<QueryResult> Client::Query(std::string_view sql, const QueryOptions& options,
                                  const std::function<Status(const RecordBatch&)>& fn) {
  return sql::RunQuery(*this, sql, options, fn);
}

Result<QueryIntoResult> Client::QueryInto(std::string_view sql, const QueryOptions& options,
                                          const QueryIntoOptions& into) {
  return sql::QueryInto(*this, sql, options, into);
}

}  // namespace tarn
