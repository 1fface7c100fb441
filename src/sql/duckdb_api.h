// DuckDB's C API, loaded at first use with dlopen: every other command works without the
// library. The function pointers are typed by DuckDB's own header (duckdb.h, installed by
// scripts/bootstrap.sh; cmake/duckdb.cmake finds it), so a signature mismatch is a compile
// error, never a crash. Only functions present in both the 1.4 header and the 1.5 library are
// listed. Internal to src/sql.
#pragma once

#include <duckdb.h>

#include <string>

#include "tarn/status.h"

namespace tarn::sql {

#define TARN_DUCKDB_FUNCTIONS(X)                        \
  X(duckdb_library_version)                             \
  X(duckdb_create_config)                               \
  X(duckdb_set_config)                                  \
  X(duckdb_destroy_config)                              \
  X(duckdb_open_ext)                                    \
  X(duckdb_close)                                       \
  X(duckdb_connect)                                     \
  X(duckdb_disconnect)                                  \
  X(duckdb_interrupt)                                   \
  X(duckdb_query_progress)                              \
  X(duckdb_query)                                       \
  X(duckdb_destroy_result)                              \
  X(duckdb_result_error)                                \
  X(duckdb_result_error_type)                           \
  X(duckdb_column_count)                                \
  X(duckdb_column_name)                                 \
  X(duckdb_column_logical_type)                         \
  X(duckdb_value_varchar)                               \
  X(duckdb_free)                                        \
  X(duckdb_prepare)                                     \
  X(duckdb_prepare_error)                               \
  X(duckdb_destroy_prepare)                             \
  X(duckdb_bind_varchar_length)                         \
  X(duckdb_pending_prepared_streaming)                  \
  X(duckdb_pending_execute_task)                        \
  X(duckdb_pending_error)                               \
  X(duckdb_execute_pending)                             \
  X(duckdb_destroy_pending)                             \
  X(duckdb_fetch_chunk)                                 \
  X(duckdb_destroy_data_chunk)                          \
  X(duckdb_data_chunk_get_vector)                       \
  X(duckdb_data_chunk_get_size)                         \
  X(duckdb_data_chunk_set_size)                         \
  X(duckdb_vector_get_data)                             \
  X(duckdb_vector_get_validity)                         \
  X(duckdb_vector_ensure_validity_writable)             \
  X(duckdb_vector_assign_string_element_len)            \
  X(duckdb_list_vector_get_child)                       \
  X(duckdb_list_vector_get_size)                        \
  X(duckdb_list_vector_set_size)                        \
  X(duckdb_list_vector_reserve)                         \
  X(duckdb_struct_vector_get_child)                     \
  X(duckdb_create_logical_type)                         \
  X(duckdb_create_list_type)                            \
  X(duckdb_create_struct_type)                          \
  X(duckdb_create_map_type)                             \
  X(duckdb_create_decimal_type)                         \
  X(duckdb_destroy_logical_type)                        \
  X(duckdb_logical_type_set_alias)                      \
  X(duckdb_logical_type_get_alias)                      \
  X(duckdb_get_type_id)                                 \
  X(duckdb_decimal_width)                               \
  X(duckdb_decimal_scale)                               \
  X(duckdb_decimal_internal_type)                       \
  X(duckdb_enum_internal_type)                          \
  X(duckdb_enum_dictionary_size)                        \
  X(duckdb_enum_dictionary_value)                       \
  X(duckdb_list_type_child_type)                        \
  X(duckdb_struct_type_child_count)                     \
  X(duckdb_struct_type_child_name)                      \
  X(duckdb_struct_type_child_type)                      \
  X(duckdb_map_type_key_type)                           \
  X(duckdb_map_type_value_type)                         \
  X(duckdb_create_table_function)                       \
  X(duckdb_destroy_table_function)                      \
  X(duckdb_table_function_set_name)                     \
  X(duckdb_table_function_add_parameter)                \
  X(duckdb_table_function_add_named_parameter)          \
  X(duckdb_table_function_set_extra_info)               \
  X(duckdb_table_function_set_bind)                     \
  X(duckdb_table_function_set_init)                     \
  X(duckdb_table_function_set_local_init)               \
  X(duckdb_table_function_set_function)                 \
  X(duckdb_table_function_supports_projection_pushdown) \
  X(duckdb_register_table_function)                     \
  X(duckdb_bind_get_extra_info)                         \
  X(duckdb_bind_add_result_column)                      \
  X(duckdb_bind_get_parameter)                          \
  X(duckdb_bind_get_named_parameter)                    \
  X(duckdb_bind_set_bind_data)                          \
  X(duckdb_bind_set_cardinality)                        \
  X(duckdb_bind_set_error)                              \
  X(duckdb_init_get_bind_data)                          \
  X(duckdb_init_set_init_data)                          \
  X(duckdb_init_get_column_count)                       \
  X(duckdb_init_get_column_index)                       \
  X(duckdb_init_set_max_threads)                        \
  X(duckdb_init_set_error)                              \
  X(duckdb_function_get_bind_data)                      \
  X(duckdb_function_get_init_data)                      \
  X(duckdb_function_get_local_init_data)                \
  X(duckdb_function_set_error)                          \
  X(duckdb_destroy_value)                               \
  X(duckdb_get_varchar)                                 \
  X(duckdb_get_int64)                                   \
  X(duckdb_get_bool)                                    \
  X(duckdb_get_timestamp)                               \
  X(duckdb_is_null_value)                               \
  X(duckdb_vector_size)

// The loaded library's entry points, named as in duckdb.h.
struct DuckDbApi {
#define TARN_DUCKDB_POINTER(f) decltype(&::f) f = nullptr;
  TARN_DUCKDB_FUNCTIONS(TARN_DUCKDB_POINTER)
#undef TARN_DUCKDB_POINTER
  std::string path;     // the file that was loaded
  std::string version;  // duckdb_library_version(), e.g. "v1.5.6"
};

// The library, loaded once per process (later calls return the same instance or the same
// error). Looked for at $TARN_DUCKDB_LIBRARY, then where the build found it
// (TARN_DUCKDB_DEFAULT_LIBRARY), then as "libduckdb.so" on the loader's path.
// Errors: sql_engine_unavailable (kUnavailable, exit 6) naming every place tried and how to
// install the library; the same when a listed function is missing from it.
Result<const DuckDbApi*> LoadDuckDb();

}  // namespace tarn::sql
