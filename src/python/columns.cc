#include "python/columns.h"

#include <pybind11/numpy.h>

#include <cstring>
#include <string>
#include <string_view>

#include "python/common.h"
#include "types/value_text.h"

namespace tarn::python {
namespace {

template <typename T>
py::array Numbers(const Column& c) {
  py::array_t<T> out(c.length);
  if (c.length > 0) std::memcpy(out.mutable_data(), c.data.data(), c.length * sizeof(T));
  return out;
}

}  // namespace

py::tuple ColumnToPython(const Column& c) {
  py::object mask = py::none();
  if (c.null_count() > 0) {
    py::array_t<bool> m(c.length);
    bool* p = m.mutable_data();
    for (int64_t i = 0; i < c.length; ++i) p[i] = !c.IsValid(i);
    mask = m;
  }
  auto kind = [&](const char* k, py::object values) { return py::make_tuple(k, values, mask); };
  switch (c.type.id()) {
    case TypeId::kBoolean: return kind("bool", Numbers<bool>(c));
    case TypeId::kInt8: return kind("int", Numbers<int8_t>(c));
    case TypeId::kInt16: return kind("int", Numbers<int16_t>(c));
    case TypeId::kInt32: return kind("int", Numbers<int32_t>(c));
    case TypeId::kInt64: return kind("int", Numbers<int64_t>(c));
    case TypeId::kUInt8: return kind("uint", Numbers<uint8_t>(c));
    case TypeId::kUInt16: return kind("uint", Numbers<uint16_t>(c));
    case TypeId::kUInt32: return kind("uint", Numbers<uint32_t>(c));
    case TypeId::kUInt64: return kind("uint", Numbers<uint64_t>(c));
    case TypeId::kFloat32: return kind("float", Numbers<float>(c));
    case TypeId::kFloat64: return kind("float", Numbers<double>(c));
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      static constexpr int64_t kToNanos[] = {1000000000, 1000000, 1000, 1};
      const int64_t f = kToNanos[static_cast<int>(c.type.unit())];
      py::array_t<int64_t> out(c.length);
      int64_t* p = out.mutable_data();
      for (int64_t i = 0; i < c.length; ++i) {
        const int64_t v = c.Value<int64_t>(i);
        if (c.IsValid(i) && __builtin_mul_overflow(v, f, &p[i])) {
          throw py::value_error("row " + std::to_string(i) + ": " + ValueText(c, i) +
                                " is outside pandas' datetime64[ns] range (1677-2262)");
        }
        if (!c.IsValid(i)) p[i] = 0;
      }
      return kind(c.type.id() == TypeId::kTimestamp ? "datetime" : "datetimetz", out);
    }
    case TypeId::kVarchar: {
      py::array out(py::dtype("O"), {c.length}, {});
      auto** p = static_cast<PyObject**>(out.mutable_data());
      for (int64_t i = 0; i < c.length; ++i) {
        std::string_view v = c.IsValid(i) ? c.StringAt(i) : std::string_view();
        PyObject* o = c.IsValid(i) ? PyUnicode_DecodeUTF8(v.data(), v.size(), "strict")
                                   : (Py_INCREF(Py_None), Py_None);
        if (o == nullptr) throw py::error_already_set();
        Py_XDECREF(p[i]);
        p[i] = o;
      }
      return kind("str", out);
    }
    default: {
      py::list out;
      for (int64_t i = 0; i < c.length; ++i) {
        if (c.IsValid(i)) {
          out.append(py::str(ValueText(c, i)));
        } else {
          out.append(py::none());
        }
      }
      return kind("text", out);
    }
  }
}

Column ColumnFromPython(const Field& f, const py::object& values, const py::object& mask,
                        int64_t rows) {
  Column col(f.type);
  if (py::isinstance<py::array>(values)) {
    py::array a = values.cast<py::array>();
    if (a.ndim() != 1 || a.shape(0) != rows || !(a.flags() & py::array::c_style) ||
        f.type.is_variable_width() || f.type.is_nested() ||
        a.itemsize() != f.type.PhysicalWidth()) {
      throw py::value_error("column '" + f.name + "': a numpy array of " +
                            std::to_string(rows) + " values of the width of " +
                            f.type.ToString() + " was expected");
    }
    col.data.resize(static_cast<size_t>(rows * a.itemsize()));
    if (rows > 0) std::memcpy(col.data.data(), a.data(), col.data.size());
    col.length = rows;
    if (!mask.is_none()) {
      py::array_t<bool, py::array::c_style | py::array::forcecast> m(mask);
      col.validity.resize(static_cast<size_t>(rows));
      for (int64_t i = 0; i < rows; ++i) col.validity[i] = m.at(i) ? 0 : 1;
    }
  } else {
    py::list texts = values.cast<py::list>();
    if (static_cast<int64_t>(texts.size()) != rows) {
      throw py::value_error("column '" + f.name + "' has " + std::to_string(texts.size()) +
                            " values, not " + std::to_string(rows));
    }
    for (int64_t i = 0; i < rows; ++i) {
      py::handle v = texts[static_cast<size_t>(i)];
      if (v.is_none()) {
        col.AppendNull();
        continue;
      }
      Status st = AppendParsedValue(v.cast<std::string>(), &col);
      if (!st.ok()) {
        Raise(Status::Of(codes::kInvalidArgument,
                         "column '" + f.name + "', row " + std::to_string(i) + ": " +
                             st.message())
                  .WithField("column", f.name)
                  .WithField("row", std::to_string(i)));
      }
    }
  }
  return col;
}

}  // namespace tarn::python
