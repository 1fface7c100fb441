// The catalog calls of tarn._tarn.Client beyond the data path (client.cc registers them as its
// methods): namespaces, dataset administration, snapshots and tags, planning, the change feed
// and its offsets, maintenance and SQL. Each releases the GIL around the SDK call and returns
// the wire codec's JSON text (src/api/wire.h: the objects of the HTTP API) where it returns one.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "python/common.h"
#include "tarn/client.h"

namespace tarn::python {

namespace py = pybind11;

void DropWorkspace(Client& c, const std::string& name);
std::string ListCollections(Client& c, const std::string& workspace);
void DropCollection(Client& c, const std::string& name);
std::string ListDatasets(Client& c, const std::string& collection);
void DropDataset(Client& c, const std::string& name, bool purge,
                 const std::optional<std::string>& expected_uuid);
void RenameDataset(Client& c, const std::string& name, const std::string& new_name);
// Properties of a workspace, a collection or a dataset (`level`: "workspace", "collection",
// "dataset"): `set` added or replaced, `unset` removed.
void SetProperties(Client& c, const std::string& level, const std::string& name,
                   const std::map<std::string, std::string>& set,
                   const std::vector<std::string>& unset);
// Schema changes in the CLI's words ("add score FLOAT64", "rename a TO b"...), one commit.
std::string AlterSchema(Client& c, const std::string& name, const std::vector<std::string>& changes,
                        std::optional<int64_t> read_snapshot_id);
std::string SetPartitionSpec(Client& c, const std::string& name, const std::string& spec);
std::string SetSortOrder(Client& c, const std::string& name, const std::string& order);
void CreateTag(Client& c, const std::string& name, const std::string& tag,
               const SnapshotSelector& at, bool replace);
void DropTag(Client& c, const std::string& name, const std::string& tag);
std::string ListTags(Client& c, const std::string& name);
std::string GetSnapshot(Client& c, const std::string& name, const SnapshotSelector& at);
// A page of snapshots by id: (after, before) exclusive, at most `limit`.
std::string SnapshotsPage(Client& c, const std::string& name, std::optional<int64_t> after,
                          std::optional<int64_t> before, int64_t limit);
// A page of planned files by path: above `after`, at most `limit`.
std::string FilesPage(Client& c, const std::string& name, const SnapshotSelector& at,
                      const std::string& where, std::optional<std::string> after, int64_t limit);
std::string Rollback(Client& c, const std::string& name, int64_t to, const CommitMeta& meta);
std::string AddFiles(Client& c, const std::string& name, const std::vector<std::string>& paths,
                     const CommitMeta& meta, bool truncate_first);
std::string Changes(Client& c, const std::string& name, int64_t from, std::optional<int64_t> to,
                    std::optional<int64_t> limit);
void CommitOffset(Client& c, const std::string& name, const std::string& consumer,
                  int64_t snapshot_id);
std::optional<int64_t> GetOffset(Client& c, const std::string& name, const std::string& consumer);
std::string Expire(Client& c, const std::string& name, int64_t older_than_us,
                   bool respect_consumer_offsets, bool dry_run);
std::string FlushInlined(Client& c, const std::string& name);
// A query's rows column by column, as scan_columns returns them ([(name, type, kind, values,
// mask)], columns.h), with the datasets it read: (columns, reads JSON). Ctrl-C stops it.
py::tuple Sql(Client& c, const std::string& query, double timeout_s, int threads);
// The query's rows committed into `target` ("create", "append", "overwrite"): the result as
// {dataset, created, rows, snapshot, reads}. Ctrl-C stops it before its commit.
std::string SqlInto(Client& c, const std::string& query, const std::string& target,
                    const std::string& mode, const CommitMeta& meta, double timeout_s, int threads);

// Adds the calls above to the native Client class (`cls`, a py::class_); `sdk` returns a bound
// object's tarn::Client&.
template <typename Class, typename Sdk>
void DefineCatalogCalls(Class& cls, Sdk sdk) {
  using Self = typename Class::type;
  cls.def("drop_workspace", [sdk](Self& s, const std::string& n) { DropWorkspace(sdk(s), n); })
      .def("list_collections",
           [sdk](Self& s, const std::string& w) { return ListCollections(sdk(s), w); })
      .def("drop_collection", [sdk](Self& s, const std::string& n) { DropCollection(sdk(s), n); })
      .def("list_datasets",
           [sdk](Self& s, const std::string& col) { return ListDatasets(sdk(s), col); })
      .def("drop_dataset",
           [sdk](Self& s, const std::string& n, bool purge, std::optional<std::string> uuid) {
             DropDataset(sdk(s), n, purge, uuid);
           })
      .def("rename_dataset", [sdk](Self& s, const std::string& n,
                                   const std::string& to) { RenameDataset(sdk(s), n, to); })
      .def("set_properties",
           [sdk](Self& s, const std::string& level, const std::string& n,
                 const std::map<std::string, std::string>& set,
                 const std::vector<std::string>& unset) {
             SetProperties(sdk(s), level, n, set, unset);
           })
      .def("alter_schema",
           [sdk](Self& s, const std::string& n, const std::vector<std::string>& changes,
                 std::optional<int64_t> read) { return AlterSchema(sdk(s), n, changes, read); })
      .def("set_partition_spec",
           [sdk](Self& s, const std::string& n, const std::string& spec) {
             return SetPartitionSpec(sdk(s), n, spec);
           })
      .def("set_sort_order",
           [sdk](Self& s, const std::string& n, const std::string& order) {
             return SetSortOrder(sdk(s), n, order);
           })
      .def("create_tag",
           [sdk](Self& s, const std::string& n, const std::string& tag,
                 std::optional<int64_t> snapshot, std::optional<int64_t> time_us,
                 std::optional<std::string> at_tag, bool replace) {
             CreateTag(sdk(s), n, tag, At(snapshot, time_us, at_tag), replace);
           })
      .def("drop_tag", [sdk](Self& s, const std::string& n,
                             const std::string& tag) { DropTag(sdk(s), n, tag); })
      .def("list_tags", [sdk](Self& s, const std::string& n) { return ListTags(sdk(s), n); })
      .def("get_snapshot",
           [sdk](Self& s, const std::string& n, std::optional<int64_t> snapshot,
                 std::optional<int64_t> time_us, std::optional<std::string> tag) {
             return GetSnapshot(sdk(s), n, At(snapshot, time_us, tag));
           })
      .def("snapshots_page",
           [sdk](Self& s, const std::string& n, std::optional<int64_t> after,
                 std::optional<int64_t> before,
                 int64_t limit) { return SnapshotsPage(sdk(s), n, after, before, limit); })
      .def("files_page",
           [sdk](Self& s, const std::string& n, std::optional<int64_t> snapshot,
                 std::optional<int64_t> time_us, std::optional<std::string> tag,
                 const std::string& where, std::optional<std::string> after, int64_t limit) {
             return FilesPage(sdk(s), n, At(snapshot, time_us, tag), where, after, limit);
           })
      .def("rollback",
           [sdk](Self& s, const std::string& n, int64_t to, const std::string& author,
                 const std::string& message) {
             return Rollback(sdk(s), n, to, Meta(sdk(s), author, message, std::nullopt));
           })
      .def("add_files",
           [sdk](Self& s, const std::string& n, const std::vector<std::string>& paths,
                 const std::string& author, const std::string& message,
                 std::optional<std::string> key, bool truncate_first) {
             return AddFiles(sdk(s), n, paths, Meta(sdk(s), author, message, key), truncate_first);
           })
      .def("changes",
           [sdk](Self& s, const std::string& n, int64_t from, std::optional<int64_t> to,
                 std::optional<int64_t> limit) { return Changes(sdk(s), n, from, to, limit); })
      .def("commit_offset",
           [sdk](Self& s, const std::string& n, const std::string& consumer, int64_t snapshot) {
             CommitOffset(sdk(s), n, consumer, snapshot);
           })
      .def("offset", [sdk](Self& s, const std::string& n,
                           const std::string& consumer) { return GetOffset(sdk(s), n, consumer); })
      .def("expire",
           [sdk](Self& s, const std::string& n, int64_t older_than_us, bool respect_offsets,
                 bool dry_run) {
             return Expire(sdk(s), n, older_than_us, respect_offsets, dry_run);
           })
      .def("flush_inlined",
           [sdk](Self& s, const std::string& n) { return FlushInlined(sdk(s), n); })
      .def("sql", [sdk](Self& s, const std::string& q, double timeout_s,
                        int threads) { return Sql(sdk(s), q, timeout_s, threads); })
      .def("sql_into",
           [sdk](Self& s, const std::string& q, const std::string& target, const std::string& mode,
                 const std::string& author, const std::string& message,
                 std::optional<std::string> key, double timeout_s, int threads) {
             return SqlInto(sdk(s), q, target, mode, Meta(sdk(s), author, message, key), timeout_s,
                            threads);
           });
}

}  // namespace tarn::python
