// tarn._tarn: the C++ SDK for Python (docs/design/python.md). Thin: the Python layer
// (python/tarn) gives the calls their shapes. Errors raise _tarn.Error(message, code, kind,
// fields), which the Python layer maps to one class per error code.
#include "python/module.h"

#include <pybind11/pybind11.h>

#include <string>

#include "python/arenas.h"
#include "python/buffers.h"
#include "python/common.h"
#include "tarn/status.h"

PYBIND11_MODULE(_tarn, m) {
  namespace py = pybind11;
  m.doc() = "tarn's C++ SDK (use the tarn package, not this module)";
  // class Error(Exception): args (message, code, kind, fields)
  tarn::python::ErrorType() = py::reinterpret_steal<py::object>(
      PyErr_NewException("tarn._tarn.Error", PyExc_Exception, nullptr));
  m.attr("Error") = tarn::python::ErrorType();
  // Every registered error code: (name, kind, http status, retryable, fields), sorted by name.
  m.def("error_codes", [] {
    py::list out;
    for (const tarn::ErrorCode* c : tarn::ErrorRegistry::All()) {
      out.append(py::make_tuple(std::string(c->name), std::string(tarn::ErrorKindName(c->kind)),
                                c->http, c->retryable, std::string(c->fields)));
    }
    return out;
  });
  // (installed, regions mapped, arenas made, arenas freed, emptied regions kept, regions
  // unmapped) of the huge-page arenas (arenas.h).
  m.def("_huge_arenas", &tarn::python::HugePageArenaStats);
  // (mappings cached, bytes cached, mappings reused) of the column buffers' cache (buffers.h).
  m.def("_mapping_cache", [] {
    const tarn::python::MappingCacheStats s = tarn::python::MappingCacheState();
    return pybind11::make_tuple(s.mappings, s.bytes, s.reused);
  });
  tarn::python::RegisterScan(m);
  tarn::python::RegisterClient(m);
  tarn::python::RegisterUploads(m);
}
