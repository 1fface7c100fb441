# Embeds docs/openapi.json into tarn_server as tarn::server::internal::kOpenApiJson (served at
# GET /v1/openapi.json, so an installed binary needs no file beside it). Included from the top
# CMakeLists.txt after tarn_module(server ...); run in script mode (cmake -P) by the build to
# write the generated source.
if(CMAKE_SCRIPT_MODE_FILE)
  file(READ "${IN}" hex HEX)
  string(LENGTH "${hex}" digits)
  math(EXPR size "${digits} / 2")
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  file(WRITE "${OUT}.tmp"
       "// Generated from docs/openapi.json by src/server/openapi.cmake; do not edit.\n"
       "#include <cstddef>\n"
       "namespace tarn::server::internal {\n"
       "extern const unsigned char kOpenApiJson[] = {${bytes}0x00};\n"
       "extern const size_t kOpenApiJsonSize = ${size};\n"
       "}  // namespace tarn::server::internal\n")
  file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
  file(REMOVE "${OUT}.tmp")
  return()
endif()

include_guard(GLOBAL)
if(TARGET tarn_server)
  set(_tarn_openapi_in ${CMAKE_SOURCE_DIR}/docs/openapi.json)
  set(_tarn_openapi_out ${CMAKE_BINARY_DIR}/generated/server/openapi_json.cc)
  add_custom_command(
    OUTPUT ${_tarn_openapi_out}
    COMMAND ${CMAKE_COMMAND} -DIN=${_tarn_openapi_in} -DOUT=${_tarn_openapi_out}
            -P ${CMAKE_CURRENT_LIST_FILE}
    DEPENDS ${_tarn_openapi_in} ${CMAKE_CURRENT_LIST_FILE}
    COMMENT "Embedding docs/openapi.json"
    VERBATIM)
  target_sources(tarn_server PRIVATE ${_tarn_openapi_out})
endif()
