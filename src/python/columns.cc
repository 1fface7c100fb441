#include "python/columns.h"

#include <pybind11/numpy.h>

// The datetime C API (PyDate_FromDate...); PyDateTime_IMPORT fills this file's PyDateTimeAPI.
#include <datetime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/text.h"
#include "python/arenas.h"
#include "python/common.h"
#include "types/value_text.h"
#include "types/variant.h"

namespace tarn::python {

Status RowError(const Field& f, int64_t row, const std::string& why) {
  return Status::Of(codes::kInvalidArgument,
                    "column '" + f.name + "', row " + std::to_string(row) + ": " + why)
      .WithField("column", f.name)
      .WithField("row", std::to_string(row));
}
namespace {

constexpr int64_t kNaT = INT64_MIN;
constexpr int64_t kNanosPerDay = 86400LL * 1000000000LL;

// The Python objects the conversions make and recognise, imported once (never released: they
// live as long as the interpreter).
struct Objects {
  PyObject* decimal;       // decimal.Decimal
  PyObject* uuid;          // uuid.UUID
  PyObject* safe_unknown;  // uuid.SafeUUID.unknown
  PyObject* int_name;      // "int"
  PyObject* is_safe_name;  // "is_safe"
  PyObject* ipv4;          // ipaddress.IPv4Address
  PyObject* timestamp;     // pandas.Timestamp
  PyObject* timedelta;     // pandas.Timedelta
  PyObject* utc;           // datetime.timezone.utc
  PyObject* na;            // pandas.NA
  PyObject* nat;           // pandas.NaT
  PyObject* np_bool;       // numpy.bool_
  PyObject* json_dumps;    // json.dumps
  PyObject* value_name;    // "value"
};

const Objects& Py() {
  static const Objects* objects = [] {
    PyDateTime_IMPORT;
    if (PyDateTimeAPI == nullptr) throw py::error_already_set();
    auto get = [](const char* module, const char* name) {
      return py::object(py::module_::import(module).attr(name)).release().ptr();
    };
    auto* o = new Objects();
    o->decimal = get("decimal", "Decimal");
    o->uuid = get("uuid", "UUID");
    o->safe_unknown =
        py::object(py::module_::import("uuid").attr("SafeUUID").attr("unknown")).release().ptr();
    o->int_name = py::str("int").release().ptr();
    o->is_safe_name = py::str("is_safe").release().ptr();
    o->ipv4 = get("ipaddress", "IPv4Address");
    o->timestamp = get("pandas", "Timestamp");
    o->timedelta = get("pandas", "Timedelta");
    o->utc =
        py::object(py::module_::import("datetime").attr("timezone").attr("utc")).release().ptr();
    o->na = get("pandas", "NA");
    o->nat = get("pandas", "NaT");
    o->np_bool = get("numpy", "bool_");
    o->json_dumps = get("json", "dumps");
    o->value_name = py::str("value").release().ptr();
    return o;
  }();
  return *objects;
}

// A value that cannot be given to Python (a date beyond datetime's years): the column's
// conversion reports it with the column and row.
struct Unrepresentable {
  std::string why;
};

py::object Steal(PyObject* o) {
  if (o == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(o);
}

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

// Microseconds since the epoch (or since midnight) of `v` in `unit`, floored for nanoseconds.
int64_t ToMicros(int64_t v, TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond:
    case TimeUnit::kMilli: {
      const int64_t f = unit == TimeUnit::kSecond ? 1000000 : 1000;
      int64_t out;
      if (__builtin_mul_overflow(v, f, &out)) throw Unrepresentable{"outside Python's datetime"};
      return out;
    }
    case TimeUnit::kMicro:
      return v;
    case TimeUnit::kNano:
      return FloorDiv(v, 1000);
  }
  return v;
}

PyObject* DateObject(int64_t days) {
  const CivilDate d = CivilFromDays(days);
  if (d.year < 1 || d.year > 9999) throw Unrepresentable{"outside Python's date (years 1-9999)"};
  return PyDate_FromDate(static_cast<int>(d.year), d.month, d.day);
}

// ---- Fast paths for the object columns of a scan (str, Decimal) ----

// A str of UTF-8 bytes: ASCII (checked 8 bytes at a time) is copied straight into a 1-byte
// compact str, anything else goes through the UTF-8 decoder (which picks UCS1/2/4).
PyObject* StrObject(std::string_view v) {
  const auto n = static_cast<Py_ssize_t>(v.size());
  if (!AllAscii(v)) return PyUnicode_DecodeUTF8(v.data(), n, "strict");
  PyObject* o = PyUnicode_New(n, 127);
  if (o != nullptr && n > 0) std::memcpy(PyUnicode_1BYTE_DATA(o), v.data(), v.size());
  return o;
}

// decimal.Decimal objects made and read without text, through the layout of the C
// implementation's objects (_decimal, CPython 3.3 to 3.12: PyDecObject around libmpdec's mpd_t,
// 64-bit: base 10^19 words). CPython gives no C API for Decimal; this layout has not changed
// since 3.3, and it is used only when the type's size is this layout's and objects made here
// equal Decimal(str) (value, str, hash, as_tuple) for a set of checks run once (DecimalFast());
// otherwise every value goes through Decimal(str) / str(d).
struct MpdLayout {
  uint8_t flags;
  Py_ssize_t exp, digits, len, alloc;
  uint64_t* data;
};
struct DecLayout {
  PyObject_HEAD Py_hash_t hash;
  MpdLayout dec;
  uint64_t data[4];  // _Py_DEC_MINALLOC
};
constexpr uint8_t kMpdNeg = 1, kMpdSpecial = 2 | 4 | 8, kMpdStatic = 16, kMpdStaticData = 32;
constexpr uint64_t kMpdRadix = 10000000000000000000ULL;  // 10^19

int DigitsOf(uint64_t w) {
  int d = 1;
  for (uint64_t p = 10; d < 20 && w >= p; p *= 10) ++d;
  return d;
}

// The Decimal of unscaled `v` at `scale` by the layout (no checks; see DecimalFast).
PyObject* MakeDecimalRaw(PyTypeObject* type, int128 v, int scale) {
  PyObject* o = type->tp_alloc(type, 0);
  if (o == nullptr) return nullptr;
  auto* d = reinterpret_cast<DecLayout*>(o);
  uint128 m = v < 0 ? uint128(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
  Py_ssize_t len = 0;
  if (m < kMpdRadix) {
    d->data[len++] = static_cast<uint64_t>(m);
  } else {
    while (m != 0) {
      d->data[len++] = static_cast<uint64_t>(m % kMpdRadix);
      m /= kMpdRadix;
    }
  }
  d->hash = -1;
  d->dec.flags = static_cast<uint8_t>(kMpdStatic | kMpdStaticData | (v < 0 ? kMpdNeg : 0));
  d->dec.exp = -scale;
  d->dec.len = len;
  d->dec.digits = DigitsOf(d->data[len - 1]) + 19 * (len - 1);
  d->dec.alloc = 4;
  d->dec.data = d->data;
  return o;
}

// The unscaled value at `scale` of Decimal `o` read by the layout, when it is a finite value
// whose text ParseDecimal reads as exactly that (no exponent notation, at most `scale` fraction
// digits) and that fits `precision` digits; nullopt otherwise (then the text decides).
std::optional<int128> ReadDecimalRaw(PyObject* o, int precision, int scale) {
  const auto* d = reinterpret_cast<const DecLayout*>(o);
  const MpdLayout& m = d->dec;
  if ((m.flags & kMpdSpecial) != 0 || m.len < 1 || m.len > 2 || m.exp > 0 || -m.exp > scale ||
      m.digits - 1 + m.exp < -6 || m.digits + scale + m.exp > precision) {
    return std::nullopt;
  }
  uint128 mag = m.data[0];
  if (m.len == 2) mag += static_cast<uint128>(m.data[1]) * kMpdRadix;
  for (Py_ssize_t k = -m.exp; k < scale; ++k) mag *= 10;  // at most `precision` digits
  const int128 v = static_cast<int128>(mag);
  return (m.flags & kMpdNeg) != 0 ? -v : v;
}

// decimal.Decimal's type when the layout above holds for it (checked once), else nullptr.
// TARN_PYTHON_DECIMAL_TEXT=1 in the environment turns the layout off (every value by text).
PyTypeObject* DecimalFast() {
  static PyTypeObject* const fast = []() -> PyTypeObject* {
    auto* type = reinterpret_cast<PyTypeObject*>(Py().decimal);
    if (std::getenv("TARN_PYTHON_DECIMAL_TEXT") != nullptr || sizeof(void*) != 8 ||
        type->tp_basicsize != static_cast<Py_ssize_t>(sizeof(DecLayout)) ||
        type->tp_itemsize != 0) {
      return nullptr;
    }
    try {
      py::module_ decimal = py::module_::import("decimal");
      // The C implementation (not _pydecimal), built with 64-bit words.
      if (!py::hasattr(decimal, "__libmpdec_version__") ||
          decimal.attr("MAX_PREC").cast<int64_t>() != 999999999999999999LL) {
        return nullptr;
      }
      const int128 e19 = static_cast<int128>(kMpdRadix);
      const int128 e38m1 = e19 * e19 - 1;
      const int128 values[] = {0,       1,       -1,         7,         -120,           123456789,
                               e19 - 1, e19,     -e19,       e19 + 1,   e38m1,          -e38m1,
                               e19 * 5, 1000000, -999999999, e38m1 / 7, -(e19 * 3 + 42)};
      for (const int128 v : values) {
        for (const int scale : {0, 1, 2, 6, 10, 19, 37, 38}) {
          char buf[kMaxDecimalChars];
          const size_t n = FormatDecimal(v, scale, buf);
          py::object want = Steal(PyObject_CallOneArg(Py().decimal, py::str(buf, n).ptr()));
          py::object made = Steal(MakeDecimalRaw(type, v, scale));
          if (!want.equal(made) ||
              py::str(want).cast<std::string>() != py::str(made).cast<std::string>() ||
              py::hash(want) != py::hash(made) ||
              !want.attr("as_tuple")().equal(made.attr("as_tuple")())) {
            return nullptr;
          }
          // Read back, as an append does (None where the text would decide).
          const std::optional<int128> read = ReadDecimalRaw(want.ptr(), 38, scale);
          if (read && *read != v) return nullptr;
        }
      }
    } catch (const std::exception&) {  // error_already_set, cast_error
      PyErr_Clear();
      return nullptr;
    }
    return type;
  }();
  return fast;
}

// One value of `c` as a Python object (a new reference; None for null): the "object" kind of
// the mapping, used at the top level for the types without a numpy dtype and at every level
// inside ARRAY, STRUCT and MAP (where numbers are int, float and bool, and timestamps
// datetime.datetime, or pandas.Timestamp at nanoseconds).
PyObject* ValueToPython(const Column& c, int64_t i) {
  if (!c.IsValid(i)) Py_RETURN_NONE;
  const Objects& o = Py();
  switch (c.type.id()) {
    case TypeId::kBoolean:
      return PyBool_FromLong(c.Value<uint8_t>(i));
    case TypeId::kInt8:
      return PyLong_FromLong(c.Value<int8_t>(i));
    case TypeId::kInt16:
      return PyLong_FromLong(c.Value<int16_t>(i));
    case TypeId::kInt32:
      return PyLong_FromLong(c.Value<int32_t>(i));
    case TypeId::kInt64:
      return PyLong_FromLongLong(c.Value<int64_t>(i));
    case TypeId::kUInt8:
      return PyLong_FromUnsignedLong(c.Value<uint8_t>(i));
    case TypeId::kUInt16:
      return PyLong_FromUnsignedLong(c.Value<uint16_t>(i));
    case TypeId::kUInt32:
      return PyLong_FromUnsignedLong(c.Value<uint32_t>(i));
    case TypeId::kUInt64:
      return PyLong_FromUnsignedLongLong(c.Value<uint64_t>(i));
    case TypeId::kFloat32:
      return PyFloat_FromDouble(c.Value<float>(i));
    case TypeId::kFloat64:
      return PyFloat_FromDouble(c.Value<double>(i));
    case TypeId::kDecimal: {
      if (PyTypeObject* fast = DecimalFast()) {
        return MakeDecimalRaw(fast, c.Value<int128>(i), c.type.scale());
      }
      char buf[kMaxDecimalChars];
      const size_t n = FormatDecimal(c.Value<int128>(i), c.type.scale(), buf);
      py::object text = Steal(PyUnicode_FromStringAndSize(buf, static_cast<Py_ssize_t>(n)));
      return PyObject_CallOneArg(o.decimal, text.ptr());
    }
    case TypeId::kVarchar:
    case TypeId::kJson:
      return StrObject(c.StringAt(i));
    case TypeId::kBlob: {
      const std::string_view v = c.StringAt(i);
      return PyBytes_FromStringAndSize(v.data(), static_cast<Py_ssize_t>(v.size()));
    }
    case TypeId::kDate:
      return DateObject(c.Value<int32_t>(i));
    case TypeId::kTime: {
      const int64_t v = c.Value<int64_t>(i);
      if (c.type.unit() == TimeUnit::kNano) {
        py::object ns = Steal(PyLong_FromLongLong(v));
        return PyObject_CallOneArg(o.timedelta, ns.ptr());
      }
      const int64_t s = v / 1000000;
      return PyTime_FromTime(static_cast<int>(s / 3600), static_cast<int>(s / 60 % 60),
                             static_cast<int>(s % 60), static_cast<int>(v % 1000000));
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      const bool tz = c.type.id() == TypeId::kTimestampTz;
      const int64_t v = c.Value<int64_t>(i);
      if (c.type.unit() == TimeUnit::kNano) {
        py::object ns = Steal(PyLong_FromLongLong(v));
        py::object t = Steal(PyObject_CallOneArg(o.timestamp, ns.ptr()));
        if (!tz) return t.release().ptr();
        return PyObject_CallMethod(t.ptr(), "tz_localize", "O", o.utc);
      }
      const int64_t us = ToMicros(v, c.type.unit());
      const int64_t day_us = 86400LL * 1000000LL;
      const int64_t days = FloorDiv(us, day_us);
      const int64_t in_day = us - days * day_us;
      const CivilDate d = CivilFromDays(days);
      if (d.year < 1 || d.year > 9999) {
        throw Unrepresentable{"outside Python's datetime (years 1-9999)"};
      }
      const int64_t s = in_day / 1000000;
      return PyDateTimeAPI->DateTime_FromDateAndTime(
          static_cast<int>(d.year), d.month, d.day, static_cast<int>(s / 3600),
          static_cast<int>(s / 60 % 60), static_cast<int>(s % 60),
          static_cast<int>(in_day % 1000000), tz ? o.utc : Py_None, PyDateTimeAPI->DateTimeType);
    }
    case TypeId::kUuid: {
      // What uuid.UUID(bytes=...) makes, without running its Python __init__: object.__new__
      // and the two slots it sets.
      py::object n = Steal(_PyLong_FromByteArray(c.data.data() + i * 16, 16, 0, 0));
      py::object u = Steal(PyBaseObject_Type.tp_new(reinterpret_cast<PyTypeObject*>(o.uuid),
                                                    py::tuple().ptr(), nullptr));
      if (PyObject_GenericSetAttr(u.ptr(), o.int_name, n.ptr()) != 0 ||
          PyObject_GenericSetAttr(u.ptr(), o.is_safe_name, o.safe_unknown) != 0) {
        throw py::error_already_set();
      }
      return u.release().ptr();
    }
    case TypeId::kIpv4: {
      py::object n = Steal(PyLong_FromUnsignedLong(c.Value<uint32_t>(i)));
      return PyObject_CallOneArg(o.ipv4, n.ptr());
    }
    case TypeId::kArray: {
      const int64_t b = c.offsets[i], e = c.offsets[i + 1];
      py::object list = Steal(PyList_New(e - b));
      for (int64_t k = b; k < e; ++k) {
        PyList_SET_ITEM(list.ptr(), k - b, Steal(ValueToPython(*c.child, k)).release().ptr());
      }
      return list.release().ptr();
    }
    case TypeId::kStruct: {
      py::dict out;
      const auto& members = c.type.children();
      for (size_t m = 0; m < members.size(); ++m) {
        py::object v = Steal(ValueToPython(c.members[m], i));
        out[py::str(members[m].name)] = v;
      }
      return out.release().ptr();
    }
    case TypeId::kMap: {
      const int64_t b = c.offsets[i], e = c.offsets[i + 1];
      py::object list = Steal(PyList_New(e - b));
      for (int64_t k = b; k < e; ++k) {
        py::object key = Steal(ValueToPython(c.members[0], k));
        py::object value = Steal(ValueToPython(c.members[1], k));
        PyList_SET_ITEM(list.ptr(), k - b, py::make_tuple(key, value).release().ptr());
      }
      return list.release().ptr();
    }
    case TypeId::kVariant: {
      std::string json;
      Status st = AppendVariantJson(c.members[0].StringAt(i), c.members[1].StringAt(i), &json);
      if (!st.ok()) throw Unrepresentable{st.message()};
      return PyUnicode_DecodeUTF8(json.data(), static_cast<Py_ssize_t>(json.size()), "strict");
    }
  }
  throw Unrepresentable{"type " + c.type.ToString() + " has no Python mapping"};
}

[[noreturn]] void RaiseRow(const Field& f, int64_t row, const std::string& why) {
  Raise(RowError(f, row, why));
}

}  // namespace

py::tuple ColumnToPython(const Field& f, const std::vector<const Column*>& parts) {
  if (IsObjectColumn(f)) {
    ObjectColumn out(f);
    for (const Column* c : parts) out.Add(*c);
    return out.Finish();
  }
  NumpyColumn out(f);
  for (const Column* c : parts) Check(out.Add(*c));
  return out.Finish();
}

// ---- NumpyColumn ----

NumpyColumn::NumpyColumn(Field f, int64_t expected_rows) : field_(std::move(f)) {
  const DataType& t = field_.type;
  if (t.id() == TypeId::kTimestamp || t.id() == TypeId::kTimestampTz || t.id() == TypeId::kTime) {
    static constexpr int64_t kToNanos[] = {1000000000, 1000000, 1000, 1};
    to_nanos_ = kToNanos[static_cast<int>(t.unit())];
  } else {
    width_ = static_cast<size_t>(t.PhysicalWidth());
  }
  if (expected_rows > 0) {
    const auto rows = static_cast<size_t>(expected_rows);
    values_.Reserve(rows * (to_nanos_ > 0 ? sizeof(int64_t) : width_));
    if (to_nanos_ == 0 && field_.nullable) mask_.Reserve(rows);
  }
}

Status NumpyColumn::Add(const Column& c) {
  const size_t n = static_cast<size_t>(c.length);
  try {
    if (to_nanos_ > 0) {
      // int64 nanoseconds, NaT for null (no mask).
      values_.Grow(n * sizeof(int64_t));
      int64_t* p = reinterpret_cast<int64_t*>(values_.data + values_.size);
      const int64_t* v = c.values<int64_t>();
      for (size_t i = 0; i < n; ++i) {
        if (!c.IsValid(static_cast<int64_t>(i))) {
          p[i] = kNaT;
        } else if (__builtin_mul_overflow(v[i], to_nanos_, &p[i]) || p[i] == kNaT) {
          return RowError(field_, rows_ + static_cast<int64_t>(i),
                          ValueText(c, static_cast<int64_t>(i)) +
                              " is outside pandas' datetime64[ns] (years 1677-2262)");
        }
      }
      values_.size += n * sizeof(int64_t);
    } else {
      values_.Grow(n * width_);
      if (n > 0) std::memcpy(values_.data + values_.size, c.data.data(), n * width_);
      values_.size += n * width_;
      if (field_.nullable) {
        mask_.Grow(n);
        uint8_t* m = mask_.data + mask_.size;
        if (c.validity.empty()) {
          std::memset(m, 0, n);
        } else {
          const uint8_t* v = c.validity.data();
          for (size_t i = 0; i < n; ++i) m[i] = v[i] == 0;
        }
        mask_.size += n;
      }
    }
  } catch (const std::bad_alloc&) {
    return Status::TooLarge("out of memory gathering column '" + field_.name + "'");
  }
  rows_ += c.length;
  return Status::OK();
}

namespace {

// `m`'s bytes as a 1-D numpy array of `rows` values of `dtype`, owning them (no copy).
py::array Adopt(MappedBuffer& m, const py::dtype& dtype, int64_t rows) {
  if (rows == 0) return py::array(dtype, {int64_t{0}}, {});
  auto* owned = new MappedBuffer(std::move(m));
  py::capsule base(owned, [](void* p) { delete static_cast<MappedBuffer*>(p); });
  return py::array(dtype, {rows}, {}, owned->data, base);
}

}  // namespace

py::tuple NumpyColumn::Finish() {
  const char* kind = NumpyKind(field_.type);
  if (kind == nullptr) {
    Raise(Status::Internal("column '" + field_.name + "' of type " + field_.type.ToString() +
                           " has no numpy dtype"));
  }
  const int64_t rows = rows_;
  rows_ = 0;
  if (to_nanos_ > 0) {
    return py::make_tuple(kind, Adopt(values_, py::dtype("i8"), rows), py::none());
  }
  // numpy's code for the kind at the column's width: ?, i1..i8, u1..u8, f4, f8.
  const std::string code =
      std::string(kind) == "bool" ? "?" : std::string(1, kind[0]) + std::to_string(width_);
  py::object mask = py::none();
  if (field_.nullable) mask = Adopt(mask_, py::dtype("?"), rows);
  return py::make_tuple(kind, Adopt(values_, py::dtype(code), rows), mask);
}

const char* NumpyKind(const DataType& t) {
  switch (t.id()) {
    case TypeId::kBoolean:
      return "bool";
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
      return "int";
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
      return "uint";
    case TypeId::kFloat32:
    case TypeId::kFloat64:
      return "float";
    case TypeId::kTimestamp:
      return "datetime";
    case TypeId::kTimestampTz:
      return "datetimetz";
    case TypeId::kTime:
      return t.unit() == TimeUnit::kNano ? "timedelta" : nullptr;  // else datetime.time
    default:
      return nullptr;
  }
}

bool IsObjectColumn(const Field& f) { return NumpyKind(f.type) == nullptr; }

namespace {
// Days a DATE column keeps one slot each for (ObjectColumn), and the cache beyond that span.
constexpr int64_t kFlatDays = 1 << 20;
constexpr size_t kDateSlots = 4096;
}  // namespace

ObjectColumn::ObjectColumn(Field f, int64_t expected_rows) : field_(std::move(f)) {
  Py();  // imports (and the datetime C API) before the first value
  UseHugePageArenas();  // before the first object: their memory faulted in 2 MiB at a time
  if (expected_rows > 0) values_.Reserve(static_cast<size_t>(expected_rows) * sizeof(PyObject*));
}

namespace {

// Drops the references an object column's buffer holds (the GIL held).
void DecRefAll(const MappedBuffer& m) {
  auto* const* v = reinterpret_cast<PyObject* const*>(m.data);
  for (size_t i = 0; i < m.size / sizeof(PyObject*); ++i) Py_XDECREF(v[i]);
}

}  // namespace

ObjectColumn::~ObjectColumn() {
  DecRefAll(values_);
  for (PyObject* v : days_) Py_XDECREF(v);
  for (auto& slot : cache_) Py_XDECREF(slot.second);
}

void ObjectColumn::Add(const Column& c) {
  values_.Grow(static_cast<size_t>(c.length) * sizeof(PyObject*));
  if (field_.type.id() == TypeId::kDate) {
    AddDates(c);
  } else {
    for (int64_t i = 0; i < c.length; ++i) {
      PyObject* v;
      try {
        v = ValueToPython(c, i);
      } catch (const Unrepresentable& u) {
        RaiseRow(field_, rows_ + i, u.why);
      }
      if (v == nullptr) throw py::error_already_set();
      Push(v);
    }
  }
  rows_ += c.length;
}

// Dates repeat (days of a few years): each distinct day is made once and shared (a date is
// immutable), through a slot per day between the first and the last day seen while they span
// at most kFlatDays, else a direct-mapped cache.
void ObjectColumn::AddDates(const Column& c) {
  const int32_t* days = c.values<int32_t>();
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  for (int64_t i = 0; i < c.length; ++i) {
    if (!c.IsValid(i)) continue;
    lo = std::min(lo, days[i]);
    hi = std::max(hi, days[i]);
  }
  if (lo <= hi && cache_.empty()) {
    const int64_t old_hi = days_.empty() ? hi : days_lo_ + static_cast<int64_t>(days_.size()) - 1;
    const int64_t new_lo = days_.empty() ? lo : std::min<int64_t>(days_lo_, lo);
    const int64_t new_hi = std::max<int64_t>(old_hi, hi);
    if (new_hi - new_lo < kFlatDays) {
      if (days_.empty() || new_lo < days_lo_ || new_hi > old_hi) {
        std::vector<PyObject*> wider(static_cast<size_t>(new_hi - new_lo + 1), nullptr);
        if (!days_.empty()) {
          std::copy(days_.begin(), days_.end(), wider.begin() + (days_lo_ - new_lo));
        }
        days_.swap(wider);
        days_lo_ = static_cast<int32_t>(new_lo);
      }
    } else {
      // Too wide a span: the days made so far go to the cache, which serves from now on.
      cache_.assign(kDateSlots, {0, nullptr});
      for (size_t k = 0; k < days_.size(); ++k) {
        if (days_[k] == nullptr) continue;
        const int32_t day = days_lo_ + static_cast<int32_t>(k);
        auto& slot = cache_[static_cast<uint32_t>(day) % kDateSlots];
        Py_XDECREF(slot.second);
        slot = {day, days_[k]};
      }
      days_.clear();
    }
  }
  for (int64_t i = 0; i < c.length; ++i) {
    PyObject* v = Py_None;
    if (c.IsValid(i)) {
      try {
        v = Date(days[i]);
      } catch (const Unrepresentable& u) {
        RaiseRow(field_, rows_ + i, u.why);
      }
    }
    Py_INCREF(v);
    Push(v);
  }
}

// The shared date object of `day` (a borrowed reference).
PyObject* ObjectColumn::Date(int32_t day) {
  PyObject** slot;
  if (cache_.empty()) {
    slot = &days_[static_cast<size_t>(static_cast<int64_t>(day) - days_lo_)];
    if (*slot != nullptr) return *slot;
  } else {
    auto& entry = cache_[static_cast<uint32_t>(day) % kDateSlots];
    if (entry.second != nullptr && entry.first == day) return entry.second;
    Py_XDECREF(entry.second);
    entry = {day, nullptr};
    slot = &entry.second;
  }
  PyObject* made = DateObject(day);
  if (made == nullptr) throw py::error_already_set();
  *slot = made;
  return made;
}

py::tuple ObjectColumn::Finish() {
  const int64_t rows = rows_;
  rows_ = 0;
  if (rows == 0)
    return py::make_tuple("object", py::array(py::dtype("O"), {int64_t{0}}, {}), py::none());
  // The array adopts the buffer: a numpy array that does not own its data never drops the
  // references in it (it does manage them on assignment), so its base drops them when the
  // array goes.
  auto* owned = new MappedBuffer(std::move(values_));
  py::capsule base(owned, [](void* p) {
    auto* m = static_cast<MappedBuffer*>(p);
    DecRefAll(*m);
    delete m;
  });
  py::array out(py::dtype("O"), {rows}, {}, owned->data, base);
  return py::make_tuple("object", out, py::none());
}

// ---- Python -> tarn ----

namespace {

// Why a value does not convert (the caller adds the column and row).
struct Refused {
  std::string why;
};

std::string TypeName(PyObject* v) { return Py_TYPE(v)->tp_name; }

[[noreturn]] void Refuse(PyObject* v, const DataType& t) {
  throw Refused{"a " + TypeName(v) + " does not convert to " + t.ToString()};
}

// Whether `v` is a null of pandas (None, pd.NA, pd.NaT) or, unless `nan_is_a_value`, a NaN.
// `not_float`, when given, carries a type known not to be a float from one call to the next
// (the caller keeps the values, and so their types, alive meanwhile).
bool IsNull(PyObject* v, bool nan_is_a_value, PyTypeObject** not_float = nullptr) {
  const Objects& o = Py();
  if (v == Py_None || v == o.na || v == o.nat) return true;
  if (nan_is_a_value) return false;
  // NaN is null, in a float or a subclass (numpy.float64 is one). The subclass test walks the
  // type's MRO: a type found not to be a float is remembered by the caller for the next value.
  PyTypeObject* t = Py_TYPE(v);
  if (t == &PyFloat_Type) return std::isnan(PyFloat_AS_DOUBLE(v));
  if (not_float != nullptr && t == *not_float) return false;
  if (PyFloat_Check(v)) return std::isnan(PyFloat_AS_DOUBLE(v));
  if (not_float != nullptr) *not_float = t;
  return false;
}

std::string_view Utf8(PyObject* s) {
  Py_ssize_t n = 0;
  const char* p = PyUnicode_AsUTF8AndSize(s, &n);
  if (p == nullptr) {
    PyErr_Clear();
    throw Refused{"a str that is not valid UTF-8 (a lone surrogate)"};
  }
  return {p, static_cast<size_t>(n)};
}

template <typename T>
T Parsed(Result<T> r) {
  if (!r.ok()) throw Refused{r.status().message()};
  return std::move(*r);
}

void Valid(const Status& st) {
  if (!st.ok()) throw Refused{st.message()};
}

// The text of str(v).
std::string Str(PyObject* v) {
  py::object s = Steal(PyObject_Str(v));
  return std::string(Utf8(s.ptr()));
}

// An int (or a float without a fraction, or anything with __index__) as int128.
int128 Integer(PyObject* v, const DataType& t) {
  if (PyBool_Check(v) || Py_TYPE(v) == reinterpret_cast<PyTypeObject*>(Py().np_bool)) {
    Refuse(v, t);
  }
  if (PyFloat_Check(v)) {
    const double d = PyFloat_AS_DOUBLE(v);
    if (!(std::trunc(d) == d) || std::fabs(d) > 1.7e38) {
      throw Refused{"float " + Str(v) + " is not a whole number"};
    }
    return static_cast<int128>(d);
  }
  if (!PyIndex_Check(v)) Refuse(v, t);
  py::object n = Steal(PyNumber_Index(v));
  int overflow = 0;
  const long long s = PyLong_AsLongLongAndOverflow(n.ptr(), &overflow);
  if (overflow == 0) return s;
  if (overflow > 0) {
    const unsigned long long u = PyLong_AsUnsignedLongLong(n.ptr());
    if (!PyErr_Occurred()) return static_cast<int128>(u);
    PyErr_Clear();
  }
  throw Refused{Str(v) + " is out of range for " + t.ToString()};
}

template <typename T>
void AppendInteger(PyObject* v, Column* out) {
  const int128 n = Integer(v, out->type);
  if (n < static_cast<int128>(std::numeric_limits<T>::min()) ||
      n > static_cast<int128>(std::numeric_limits<T>::max())) {
    throw Refused{Str(v) + " is out of range for " + out->type.ToString()};
  }
  out->AppendFixed(static_cast<T>(n));
}

double Float(PyObject* v, const DataType& t) {
  if (PyUnicode_Check(v) || PyBytes_Check(v)) Refuse(v, t);
  const double d = PyFloat_AsDouble(v);
  if (d == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    Refuse(v, t);
  }
  return d;
}

// Nanoseconds since the epoch (UTC for an aware value) of a datetime or pandas.Timestamp, as
// int128 so no value overflows.
int128 EpochNanos(PyObject* v) {
  const Objects& o = Py();
  if (PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject*>(o.timestamp))) {
    py::object ns = Steal(PyObject_GetAttr(v, o.value_name));  // UTC when aware
    return PyLong_AsLongLong(ns.ptr());
  }
  const int64_t days =
      DaysFromCivil(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v), PyDateTime_GET_DAY(v));
  int128 us = static_cast<int128>(days) * 86400000000LL +
              (PyDateTime_DATE_GET_HOUR(v) * 3600LL + PyDateTime_DATE_GET_MINUTE(v) * 60LL +
               PyDateTime_DATE_GET_SECOND(v)) *
                  1000000LL +
              PyDateTime_DATE_GET_MICROSECOND(v);
  py::object offset = Steal(PyObject_CallMethod(v, "utcoffset", nullptr));
  if (!offset.is_none()) {
    us -= (PyDateTime_DELTA_GET_DAYS(offset.ptr()) * 86400LL +
           PyDateTime_DELTA_GET_SECONDS(offset.ptr())) *
              1000000LL +
          PyDateTime_DELTA_GET_MICROSECONDS(offset.ptr());
  }
  return us * 1000;
}

int64_t NanosPer(TimeUnit unit) {
  static constexpr int64_t kNanos[] = {1000000000, 1000000, 1000, 1};
  return kNanos[static_cast<int>(unit)];
}

// `nanos` in `unit`: exact, else refused.
int64_t InUnit(int128 nanos, TimeUnit unit, const DataType& t) {
  const int64_t per = NanosPer(unit);
  if (nanos % per != 0) {
    throw Refused{"the value has a fraction finer than " + t.ToString() + " holds"};
  }
  const int128 v = nanos / per;
  if (v < INT64_MIN || v > INT64_MAX) throw Refused{"the value is out of range"};
  return static_cast<int64_t>(v);
}

// Nanoseconds of a timedelta / pandas.Timedelta.
int128 DeltaNanos(PyObject* v) {
  const Objects& o = Py();
  if (PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject*>(o.timedelta))) {
    py::object ns = Steal(PyObject_GetAttr(v, o.value_name));
    return PyLong_AsLongLong(ns.ptr());
  }
  return (static_cast<int128>(PyDateTime_DELTA_GET_DAYS(v)) * 86400 +
          PyDateTime_DELTA_GET_SECONDS(v)) *
             1000000000 +
         static_cast<int128>(PyDateTime_DELTA_GET_MICROSECONDS(v)) * 1000;
}

std::string JsonText(PyObject* v) {
  if (PyUnicode_Check(v)) return std::string(Utf8(v));
  py::object s = Steal(PyObject_CallOneArg(Py().json_dumps, v));
  return std::string(Utf8(s.ptr()));
}

// Items of a list, tuple or 1-D numpy array.
py::object Sequence(PyObject* v, const DataType& t) {
  if (!PyList_Check(v) && !PyTuple_Check(v) && !py::isinstance<py::array>(py::handle(v))) {
    Refuse(v, t);
  }
  return Steal(PySequence_Fast(v, "a sequence"));
}

void AppendObject(PyObject* v, Column* out);

void AppendValue(PyObject* v, Column* out) {
  if (IsNull(v, out->type.is_floating())) {
    out->AppendNull();
    return;
  }
  AppendObject(v, out);
}

void AppendObject(PyObject* v, Column* out) {
  const DataType& t = out->type;
  switch (t.id()) {
    case TypeId::kBoolean: {
      if (!PyBool_Check(v) && Py_TYPE(v) != reinterpret_cast<PyTypeObject*>(Py().np_bool)) {
        Refuse(v, t);
      }
      out->AppendFixed<uint8_t>(PyObject_IsTrue(v) ? 1 : 0);
      return;
    }
    case TypeId::kInt8:
      return AppendInteger<int8_t>(v, out);
    case TypeId::kInt16:
      return AppendInteger<int16_t>(v, out);
    case TypeId::kInt32:
      return AppendInteger<int32_t>(v, out);
    case TypeId::kInt64:
      return AppendInteger<int64_t>(v, out);
    case TypeId::kUInt8:
      return AppendInteger<uint8_t>(v, out);
    case TypeId::kUInt16:
      return AppendInteger<uint16_t>(v, out);
    case TypeId::kUInt32:
      return AppendInteger<uint32_t>(v, out);
    case TypeId::kUInt64:
      return AppendInteger<uint64_t>(v, out);
    case TypeId::kFloat32:
      return out->AppendFixed(static_cast<float>(Float(v, t)));
    case TypeId::kFloat64:
      return out->AppendFixed(Float(v, t));
    case TypeId::kDecimal: {
      if (PyTypeObject* fast = DecimalFast(); fast != nullptr && Py_TYPE(v) == fast) {
        if (const std::optional<int128> d = ReadDecimalRaw(v, t.precision(), t.scale())) {
          out->AppendFixed(*d);
          return;
        }
      }
      std::string text;
      if (PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject*>(Py().decimal)) ||
          PyUnicode_Check(v)) {
        text = Str(v);
      } else if (PyIndex_Check(v) && !PyBool_Check(v)) {
        text = Str(Steal(PyNumber_Index(v)).ptr());
      } else {
        Refuse(v, t);  // a float is not exact: give a Decimal
      }
      out->AppendFixed(Parsed(ParseDecimal(text, t.precision(), t.scale())));
      return;
    }
    case TypeId::kVarchar: {
      if (!PyUnicode_Check(v)) Refuse(v, t);
      const std::string_view s = Utf8(v);
      out->AppendBytes(s);
      return;
    }
    case TypeId::kJson: {
      const std::string s = JsonText(v);
      Valid(ValidateJson(s));
      out->AppendBytes(s);
      return;
    }
    case TypeId::kBlob: {
      if (!PyBytes_Check(v) && !PyByteArray_Check(v) && !PyMemoryView_Check(v)) Refuse(v, t);
      Py_buffer b;
      if (PyObject_GetBuffer(v, &b, PyBUF_SIMPLE) != 0) throw py::error_already_set();
      out->AppendBytes(
          std::string_view(static_cast<const char*>(b.buf), static_cast<size_t>(b.len)));
      PyBuffer_Release(&b);
      return;
    }
    case TypeId::kDate: {
      // A datetime is a date too: it is told apart first, except for a plain date (the common
      // case), whose exact type test spares the walk of the type's MRO.
      if (!PyDate_CheckExact(v) && PyDateTime_Check(v)) {
        const int128 ns = EpochNanos(v);
        if (ns % kNanosPerDay != 0) throw Refused{"a datetime that is not at midnight"};
        out->AppendFixed(static_cast<int32_t>(ns / kNanosPerDay));
      } else if (PyDate_Check(v)) {
        out->AppendFixed(static_cast<int32_t>(
            DaysFromCivil(PyDateTime_GET_YEAR(v), PyDateTime_GET_MONTH(v), PyDateTime_GET_DAY(v))));
      } else if (PyUnicode_Check(v)) {
        out->AppendFixed(Parsed(ParseDate(Utf8(v))));
      } else {
        Refuse(v, t);
      }
      return;
    }
    case TypeId::kTime: {
      int128 ns;
      if (PyTime_Check(v)) {
        if (PyDateTime_TIME_GET_TZINFO(v) != Py_None) {
          throw Refused{"a time with a zone (TIME has none)"};
        }
        ns = ((PyDateTime_TIME_GET_HOUR(v) * 3600LL + PyDateTime_TIME_GET_MINUTE(v) * 60LL +
               PyDateTime_TIME_GET_SECOND(v)) *
                  1000000LL +
              PyDateTime_TIME_GET_MICROSECOND(v)) *
             1000;
      } else if (PyDelta_Check(v)) {
        ns = DeltaNanos(v);
        if (ns < 0 || ns >= kNanosPerDay) throw Refused{"a timedelta outside one day"};
      } else if (PyUnicode_Check(v)) {
        out->AppendFixed(Parsed(ParseTime(Utf8(v), t.unit())));
        return;
      } else {
        Refuse(v, t);
      }
      out->AppendFixed(InUnit(ns, t.unit(), t));
      return;
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      if (PyDateTime_Check(v)) {
        out->AppendFixed(InUnit(EpochNanos(v), t.unit(), t));
      } else if (PyUnicode_Check(v)) {
        out->AppendFixed(Parsed(t.id() == TypeId::kTimestamp
                                    ? ParseTimestamp(Utf8(v), t.unit())
                                    : ParseTimestampTz(Utf8(v), t.unit())));
      } else {
        Refuse(v, t);
      }
      return;
    }
    case TypeId::kUuid: {
      uint8_t bytes[16];
      if (PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject*>(Py().uuid))) {
        py::object n = Steal(PyObject_GetAttr(v, Py().int_name));
        if (_PyLong_AsByteArray(reinterpret_cast<PyLongObject*>(n.ptr()), bytes, 16, 0, 0) != 0) {
          throw py::error_already_set();
        }
      } else if (PyUnicode_Check(v)) {
        const auto parsed = Parsed(ParseUuid(Utf8(v)));
        std::memcpy(bytes, parsed.data(), 16);
      } else if (PyBytes_Check(v) && PyBytes_GET_SIZE(v) == 16) {
        std::memcpy(bytes, PyBytes_AS_STRING(v), 16);
      } else {
        Refuse(v, t);
      }
      out->AppendFixedBytes(bytes, 16);
      return;
    }
    case TypeId::kIpv4: {
      if (PyObject_TypeCheck(v, reinterpret_cast<PyTypeObject*>(Py().ipv4))) {
        py::object n = Steal(PyNumber_Long(v));
        out->AppendFixed(static_cast<uint32_t>(PyLong_AsUnsignedLong(n.ptr())));
      } else if (PyUnicode_Check(v)) {
        out->AppendFixed(Parsed(ParseIpv4(Utf8(v))));
      } else {
        Refuse(v, t);
      }
      return;
    }
    case TypeId::kArray: {
      py::object items = Sequence(v, t);
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
      PyObject** p = PySequence_Fast_ITEMS(items.ptr());
      for (Py_ssize_t k = 0; k < n; ++k) AppendValue(p[k], out->child.get());
      out->AppendArrayRow();
      return;
    }
    case TypeId::kStruct: {
      if (!PyDict_Check(v)) Refuse(v, t);
      const auto& members = t.children();
      Py_ssize_t found = 0;
      for (size_t m = 0; m < members.size(); ++m) {
        PyObject* item = PyDict_GetItemString(v, members[m].name.c_str());  // borrowed
        if (item == nullptr) {
          out->members[m].AppendNull();
        } else {
          ++found;
          AppendValue(item, &out->members[m]);
        }
      }
      if (found != PyDict_Size(v)) {
        for (auto item : py::reinterpret_borrow<py::dict>(v)) {
          const std::string k = py::str(item.first);
          bool known = false;
          for (const Field& m : members) known = known || m.name == k;
          if (!known) throw Refused{"member '" + k + "' is not in " + t.ToString()};
        }
      }
      out->AppendStructRow();
      return;
    }
    case TypeId::kMap: {
      auto entry = [&](PyObject* key, PyObject* value) {
        if (IsNull(key, false)) throw Refused{"a MAP key is null"};
        AppendValue(key, &out->members[0]);
        AppendValue(value, &out->members[1]);
      };
      if (PyDict_Check(v)) {
        PyObject *key, *value;
        Py_ssize_t pos = 0;
        while (PyDict_Next(v, &pos, &key, &value)) entry(key, value);
      } else {
        py::object items = Sequence(v, t);
        const Py_ssize_t n = PySequence_Fast_GET_SIZE(items.ptr());
        PyObject** p = PySequence_Fast_ITEMS(items.ptr());
        for (Py_ssize_t k = 0; k < n; ++k) {
          if (!PyTuple_Check(p[k]) && !PyList_Check(p[k])) {
            throw Refused{"a MAP entry is a (key, value) pair, not a " + TypeName(p[k])};
          }
          py::object pair = Steal(PySequence_Fast(p[k], "a pair"));
          if (PySequence_Fast_GET_SIZE(pair.ptr()) != 2) {
            throw Refused{"a MAP entry is a (key, value) pair"};
          }
          entry(PySequence_Fast_ITEMS(pair.ptr())[0], PySequence_Fast_ITEMS(pair.ptr())[1]);
        }
      }
      out->AppendArrayRow();
      return;
    }
    case TypeId::kVariant: {
      std::string metadata, value;
      Valid(EncodeVariantFromJson(JsonText(v), &metadata, &value));
      out->AppendVariant(metadata, value);
      return;
    }
  }
  Refuse(v, t);
}

}  // namespace

ColumnInput::ColumnInput(Field f, const py::object& kind_values_mask, int64_t rows)
    : field_(std::move(f)), rows_(rows) {
  py::tuple kvm = kind_values_mask.cast<py::tuple>();
  const std::string kind = kvm[0].cast<std::string>();
  values_ = kvm[1];
  mask_ = kvm[2];
  const std::string what = "column '" + field_.name + "' (" + field_.type.ToString() + ")";
  py::array a = py::array::ensure(values_);
  if (!a || a.ndim() != 1 || a.shape(0) != rows || !(a.flags() & py::array::c_style)) {
    throw py::value_error(what + ": a 1-D numpy array of " + std::to_string(rows) +
                          " values was expected");
  }
  values_ = a;
  data_ = a.data();
  if (kind == "raw") {
    kind_ = Kind::kRaw;
    if (field_.type.is_variable_width() || field_.type.is_nested() ||
        field_.type.id() == TypeId::kVariant || a.itemsize() != field_.type.PhysicalWidth() ||
        a.dtype().kind() == 'O') {
      throw py::value_error(what + ": a numpy array of its physical width was expected");
    }
  } else if (kind == "ns") {
    kind_ = Kind::kNanos;
    const TypeId id = field_.type.id();
    if ((id != TypeId::kTimestamp && id != TypeId::kTimestampTz && id != TypeId::kDate &&
         id != TypeId::kTime) ||
        a.itemsize() != 8 || a.dtype().kind() == 'O') {
      throw py::value_error(what + ": int64 nanoseconds fit only DATE, TIME and timestamps");
    }
  } else if (kind == "object") {
    kind_ = Kind::kObject;
    if (a.dtype().kind() != 'O') throw py::value_error(what + ": an object array was expected");
    Py();  // imports before a worker thread converts
  } else {
    throw py::value_error(what + ": unknown kind '" + kind + "'");
  }
  if (!mask_.is_none()) {
    py::array m = py::array::ensure(mask_);
    if (!m || m.ndim() != 1 || m.shape(0) != rows || m.itemsize() != 1 || m.dtype().kind() != 'b' ||
        !(m.flags() & py::array::c_style)) {
      throw py::value_error(what + ": the mask must be a numpy bool array of " +
                            std::to_string(rows) + " values");
    }
    mask_ = m;
    nulls_ = static_cast<const bool*>(m.data());
  }
}

Status ColumnInput::RowError(int64_t row, const std::string& why) const {
  return Status::Of(codes::kInvalidArgument,
                    "column '" + field_.name + "', row " + std::to_string(row) + ": " + why)
      .WithField("column", field_.name)
      .WithField("row", std::to_string(row));
}

Result<Column> ColumnInput::Slice(int64_t begin, int64_t end) const {
  if (kind_ == Kind::kNanos) return SliceNanos(begin, end);
  if (kind_ == Kind::kObject) return SliceObjects(begin, end);
  const int64_t n = end - begin;
  const size_t width = static_cast<size_t>(field_.type.PhysicalWidth());
  Column col(field_.type);
  col.data.resize(static_cast<size_t>(n) * width);
  if (n > 0) {
    std::memcpy(col.data.data(), static_cast<const char*>(data_) + begin * width, col.data.size());
  }
  col.length = n;
  if (nulls_ != nullptr) {
    col.validity.resize(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) col.validity[i] = nulls_[begin + i] ? 0 : 1;
  }
  if (field_.type.id() == TypeId::kBoolean) {  // numpy bools are 0/1 bytes, as tarn's are
    for (int64_t i = 0; i < n; ++i) col.data[i] = col.data[i] != 0;
  }
  return col;
}

Result<Column> ColumnInput::SliceNanos(int64_t begin, int64_t end) const {
  const int64_t n = end - begin;
  const DataType& t = field_.type;
  const bool date = t.id() == TypeId::kDate;
  const bool time = t.id() == TypeId::kTime;
  const int64_t per = date ? kNanosPerDay : NanosPer(t.unit());
  const auto* in = static_cast<const int64_t*>(data_) + begin;
  Column col(t);
  col.data.resize(static_cast<size_t>(n) * (date ? 4 : 8));
  col.length = n;
  bool any_null = false;
  for (int64_t i = 0; i < n; ++i)
    any_null = any_null || in[i] == kNaT || (nulls_ && nulls_[begin + i]);
  if (any_null) col.validity.assign(static_cast<size_t>(n), 1);
  auto* out64 = col.mutable_values<int64_t>();
  auto* out32 = col.mutable_values<int32_t>();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = in[i];
    if (v == kNaT || (nulls_ && nulls_[begin + i])) {
      col.validity[i] = 0;
      if (date) {
        out32[i] = 0;
      } else {
        out64[i] = 0;
      }
      continue;
    }
    if (v % per != 0) {
      return RowError(begin + i,
                      date ? "a timestamp that is not at midnight"
                           : "the value has a fraction finer than " + t.ToString() + " holds");
    }
    if (time && (v < 0 || v >= kNanosPerDay)) {
      return RowError(begin + i, "a timedelta outside one day");
    }
    if (date) {
      out32[i] = static_cast<int32_t>(v / per);
    } else {
      out64[i] = v / per;
    }
  }
  return col;
}

Result<Column> ColumnInput::SliceObjects(int64_t begin, int64_t end) const {
  // The GIL is held (needs_gil()).
  const bool floating = field_.type.is_floating();
  PyObject* const* items = static_cast<PyObject* const*>(data_);
  Column col(field_.type);
  // Room for every row at once (a value of a variable width adds its bytes as it comes).
  if (const int width = field_.type.PhysicalWidth(); width > 0) {
    col.data.reserve(static_cast<size_t>(end - begin) * static_cast<size_t>(width));
  } else if (field_.type.is_variable_width()) {
    col.offsets.reserve(static_cast<size_t>(end - begin) + 1);
  }
  PyTypeObject* not_float = nullptr;  // a type of this column's values that is not a float
  int64_t row = begin;
  try {
    for (; row < end; ++row) {
      PyObject* v = items[row];
      if ((nulls_ != nullptr && nulls_[row]) || IsNull(v, floating, &not_float)) {
        col.AppendNull();
      } else {
        AppendObject(v, &col);
      }
    }
  } catch (const Refused& r) {
    return RowError(row, r.why);
  } catch (py::error_already_set& e) {
    return RowError(row, e.what());
  } catch (const std::exception& e) {
    return RowError(row, e.what());
  }
  return col;
}

}  // namespace tarn::python
