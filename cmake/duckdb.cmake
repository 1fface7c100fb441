# DuckDB's C API header for src/sql (the library itself is loaded at run time with dlopen).
# scripts/bootstrap.sh installs header and library into one directory: TARN_DUCKDB_DIR (a CMake
# or environment variable), else /opt/tarn/duckdb, else ~/.cache/tarn/duckdb; a system-wide
# DuckDB (duckdb.h on the include path) works the same. Sets TARN_DUCKDB_INCLUDE_DIR and
# TARN_DUCKDB_DEFAULT_LIBRARY (the libduckdb.so found beside it, tried first at run time).
set(_tarn_duckdb_hints)
if(TARN_DUCKDB_DIR)
  list(APPEND _tarn_duckdb_hints ${TARN_DUCKDB_DIR})
endif()
if(DEFINED ENV{TARN_DUCKDB_DIR})
  list(APPEND _tarn_duckdb_hints $ENV{TARN_DUCKDB_DIR})
endif()
list(APPEND _tarn_duckdb_hints /opt/tarn/duckdb $ENV{HOME}/.cache/tarn/duckdb)
find_path(TARN_DUCKDB_INCLUDE_DIR duckdb.h HINTS ${_tarn_duckdb_hints} PATH_SUFFIXES include)
if(NOT TARN_DUCKDB_INCLUDE_DIR)
  message(FATAL_ERROR "duckdb.h not found (looked in ${_tarn_duckdb_hints} and the system): "
                      "run scripts/bootstrap.sh, or set TARN_DUCKDB_DIR")
endif()
get_filename_component(_tarn_duckdb_root ${TARN_DUCKDB_INCLUDE_DIR} DIRECTORY)
find_file(TARN_DUCKDB_DEFAULT_LIBRARY libduckdb.so HINTS ${_tarn_duckdb_root}/lib
          ${_tarn_duckdb_hints} PATH_SUFFIXES lib NO_DEFAULT_PATH)
