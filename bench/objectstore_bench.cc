// tarn's S3 client against curl on the same transfers to the same gateway in the same run
// (bench/README.md, "Object storage"). Run it against the local Ceph RGW:
//
//   tests/run_with_rgw.sh build/bench/objectstore_bench [--size-mib N] [--runs N]
//                                                       [--part-size-mib N] [--dir DIR]
//
// Reads the endpoint, credentials and bucket from the environment that run_with_rgw.sh exports
// (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, TARN_S3_TEST_BUCKET)
// and refuses any endpoint but a loopback one. Each run uploads and downloads one object of
// --size-mib (default 256) with curl (`--aws-sigv4`, UNSIGNED-PAYLOAD, from a file in the page
// cache, to /dev/null) and with tarn (streaming writer from memory; Get and a ranged reader
// into memory) in alternation, plus variants that show why the defaults are what they are.
// Prints the median and best rate of each and their ratio to curl's as a table on stdout, and
// one JSON object per figure on stderr.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "objectstore/s3/s3_store.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  uint64_t size_mib = 256;
  uint64_t part_mib = 8;
  int runs = 5;
  std::string dir = "/tmp";
};

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "objectstore_bench: %s\n", what.c_str());
  std::exit(1);
}

void Check(const tarn::Status& st, const std::string& what) {
  if (!st.ok()) Die(what + ": " + st.ToString());
}

Args ParseArgs(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (i + 1 >= argc) Die("missing value after " + std::string(arg));
    if (arg == "--size-mib") {
      a.size_mib = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--part-size-mib") {
      a.part_mib = std::strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--runs") {
      a.runs = std::atoi(argv[++i]);
    } else if (arg == "--dir") {
      a.dir = argv[++i];
    } else {
      Die("unknown argument " + std::string(arg) +
          " (usage: objectstore_bench [--size-mib N] [--runs N] [--part-size-mib N] [--dir DIR])");
    }
  }
  if (a.size_mib == 0 || a.runs <= 0) Die("--size-mib and --runs must be positive");
  return a;
}

// Runs curl with these arguments, stdout to /dev/null; exits on failure.
void RunCurl(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>("curl"));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawnp(&pid, "curl", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) Die("cannot run curl: " + std::string(std::strerror(rc)));
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) Die("curl failed");
}

// Starts a multipart upload with curl and returns its id.
std::string StartMultipart(const tarn::S3Options& o, const std::string& key) {
  std::string out = "/tmp/objectstore_bench-" + std::to_string(::getpid()) + ".xml";
  std::vector<std::string> a = {
      "-sS",
      "--fail",
      "--aws-sigv4",
      "aws:amz:" + o.region + ":s3",
      "--user",
      o.access_key_id + ":" + o.secret_access_key,
      "-H",
      "x-amz-content-sha256: UNSIGNED-PAYLOAD",
      "-X",
      "POST",
      "-o",
      out,
      o.endpoint + "/" + o.bucket + "/" + o.prefix + "/" + key + "?uploads="};
  RunCurl(a);
  FILE* f = std::fopen(out.c_str(), "rb");
  std::string xml;
  char buf[4096];
  size_t n;
  while (f != nullptr && (n = std::fread(buf, 1, sizeof(buf), f)) > 0) xml.append(buf, n);
  if (f != nullptr) std::fclose(f);
  std::remove(out.c_str());
  size_t b = xml.find("<UploadId>"), e = xml.find("</UploadId>");
  if (b == std::string::npos || e == std::string::npos) Die("no UploadId in " + xml);
  return xml.substr(b + 10, e - b - 10);
}

double Seconds(const std::function<void()>& fn) {
  auto start = Clock::now();
  fn();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  Args args = ParseArgs(argc, argv);
  auto base = tarn::S3Options::FromEnvironment();
  Check(base.status(), "reading the environment");
  const char* bucket = std::getenv("TARN_S3_TEST_BUCKET");
  if (bucket == nullptr) Die("TARN_S3_TEST_BUCKET is not set (run under tests/run_with_rgw.sh)");
  std::string endpoint = base->endpoint;
  if (endpoint.rfind("http://127.", 0) != 0 && endpoint.rfind("http://localhost:", 0) != 0) {
    Die("only a loopback endpoint is benchmarked, not '" + endpoint + "'");
  }
  base->bucket = bucket;
  base->prefix = "bench-" + std::to_string(::getpid());

  struct Variant {
    std::string name;
    uint64_t max_part_size;
    int concurrency;
    uint64_t max_signed_payload;
  };
  // The defaults first (parts of 8 MiB doubling every 4 parts up to 32 MiB, 2 in flight, parts
  // not hashed), then what the defaults were chosen over.
  const uint64_t part = args.part_mib << 20;
  const std::vector<Variant> uploads = {
      {"tarn upload (streaming writer, defaults)", 32 << 20, 2, 1 << 20},
      {"tarn upload, fixed 8 MiB parts", part, 2, 1 << 20},
      {"tarn upload, fixed 8 MiB parts, 1 in flight", part, 1, 1 << 20},
      {"tarn upload, defaults + parts SHA-256 signed", 32 << 20, 2, UINT64_MAX}};
  std::vector<std::shared_ptr<tarn::S3ObjectStore>> stores;
  for (const Variant& v : uploads) {
    tarn::S3Options o = *base;
    o.part_size = part;
    o.max_part_size = v.max_part_size;
    o.upload_concurrency = v.concurrency;
    o.max_signed_payload = v.max_signed_payload;
    auto store = tarn::S3ObjectStore::Make(o);
    Check(store.status(), "opening the store");
    stores.push_back(*store);
  }
  tarn::S3ObjectStore& store = *stores[0];

  const uint64_t size = args.size_mib << 20;
  std::string data(size, '\0');
  uint64_t x = 88172645463325252ULL;
  for (size_t i = 0; i + 8 <= data.size(); i += 8) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    std::memcpy(&data[i], &x, 8);
  }
  std::string file = args.dir + "/objectstore_bench-" + std::to_string(::getpid()) + ".bin";
  {
    FILE* f = std::fopen(file.c_str(), "wb");
    if (f == nullptr || std::fwrite(data.data(), 1, data.size(), f) != data.size() ||
        std::fclose(f) != 0) {
      Die("cannot write " + file);
    }
  }
  // The same bytes as fixed-size part files, for curl uploading the parts of a multipart
  // upload (one invocation, one connection, parts in sequence).
  std::vector<std::string> part_files;
  for (uint64_t pos = 0; pos < size; pos += part) {
    std::string name = file + ".part" + std::to_string(part_files.size() + 1);
    FILE* f = std::fopen(name.c_str(), "wb");
    size_t n = static_cast<size_t>(std::min<uint64_t>(part, size - pos));
    if (f == nullptr || std::fwrite(data.data() + pos, 1, n, f) != n || std::fclose(f) != 0) {
      Die("cannot write " + name);
    }
    part_files.push_back(name);
  }
  std::string url_base = endpoint + "/" + bucket + "/" + base->prefix + "/";
  std::vector<std::string> curl_auth = {
      "-sS",         "--fail",
      "--aws-sigv4", "aws:amz:" + base->region + ":s3",
      "--user",      base->access_key_id + ":" + base->secret_access_key,
      "-H",          "x-amz-content-sha256: UNSIGNED-PAYLOAD"};

  // The ranged reader fills a buffer allocated (and paged in) once, as a reader with its own
  // buffers would; curl writes to /dev/null. Get allocates its std::string each time.
  std::unique_ptr<uint8_t[]> download(new uint8_t[size]);
  std::memset(download.get(), 0, size);
  std::map<std::string, std::vector<double>> times;
  std::vector<std::string> order;
  auto record = [&](const std::string& name, double s) {
    if (!times.count(name)) order.push_back(name);
    times[name].push_back(s);
  };
  std::fprintf(stderr, "objectstore_bench: %llu MiB object, %d runs, %s\n",
               static_cast<unsigned long long>(args.size_mib), args.runs, endpoint.c_str());
  for (int run = 0; run < args.runs; ++run) {
    // Uploads, curl first on even runs and last on odd ones.
    auto curl_up = [&] {
      std::vector<std::string> a = curl_auth;
      a.insert(a.end(), {"-X", "PUT", "-T", file, url_base + "curl.bin"});
      record("curl upload", Seconds([&] { RunCurl(a); }));
    };
    if (run % 2 == 0) curl_up();
    for (size_t v = 0; v < uploads.size(); ++v) {
      record(uploads[v].name, Seconds([&] {
               auto out = stores[v]->OpenWrite("tarn.bin");
               Check(out.status(), "OpenWrite");
               for (size_t pos = 0; pos < data.size(); pos += 1 << 20) {
                 Check((*out)->Write(std::string_view(data).substr(pos, 1 << 20)), "Write");
               }
               Check((*out)->Close(), "Close");
             }));
    }
    record("tarn upload, one PutObject",
           Seconds([&] { Check(store.Put("put.bin", data), "Put"); }));
    {
      // curl sends the parts of a multipart upload it started; only the part uploads are timed.
      std::string upload_id = StartMultipart(*base, "curl-parts.bin");
      std::vector<std::string> a = curl_auth;
      a.insert(a.end(), {"-o", "/dev/null"});
      for (size_t i = 0; i < part_files.size(); ++i) {
        a.insert(a.end(), {"-T", part_files[i],
                           url_base + "curl-parts.bin?partNumber=" + std::to_string(i + 1) +
                               "&uploadId=" + upload_id});
      }
      record("curl upload, fixed 8 MiB parts, 1 in flight", Seconds([&] { RunCurl(a); }));
      std::vector<std::string> abort = curl_auth;
      abort.insert(abort.end(), {"-o", "/dev/null", "-X", "DELETE",
                                 url_base + "curl-parts.bin?uploadId=" + upload_id});
      RunCurl(abort);
    }
    if (run % 2 == 1) curl_up();

    // Downloads.
    auto curl_down = [&] {
      std::vector<std::string> a = curl_auth;
      a.insert(a.end(), {"-o", "/dev/null", url_base + "curl.bin"});
      record("curl download", Seconds([&] { RunCurl(a); }));
    };
    if (run % 2 == 0) curl_down();
    record("tarn download (Get)", Seconds([&] {
             auto got = store.Get("tarn.bin");
             Check(got.status(), "Get");
             if (got->size() != size) Die("short download");
           }));
    record("tarn download, ranged reader", Seconds([&] {
             auto f = store.OpenRead("tarn.bin");
             Check(f.status(), "OpenRead");
             Check((*f)->ReadAt(0, size, download.get()), "ReadAt");
           }));
    if (run % 2 == 1) curl_down();
    auto check = store.Get("tarn.bin");
    Check(check.status(), "Get");
    if (*check != data) Die("tarn.bin does not hold what was uploaded");
    Check(store.DeleteMany({"tarn.bin", "put.bin", "curl.bin"}), "cleanup");
    // RGW frees deleted and overwritten data in the background (scripts/rgw.sh sets its garbage
    // collector to run every second): let it finish outside the timed transfers.
    std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  std::remove(file.c_str());
  for (const auto& name : part_files) std::remove(name.c_str());

  double mb = static_cast<double>(size) / 1e6;
  double curl_up = mb / Median(times["curl upload"]);
  double curl_down = mb / Median(times["curl download"]);
  std::printf("%-46s %10s %10s %10s\n", "transfer", "MB/s", "tarn/curl", "best-of");
  double curl_up_best =
      mb / *std::min_element(times["curl upload"].begin(), times["curl upload"].end());
  double curl_down_best =
      mb / *std::min_element(times["curl download"].begin(), times["curl download"].end());
  for (const std::string& name : order) {
    double rate = mb / Median(times[name]);
    double best = mb / *std::min_element(times[name].begin(), times[name].end());
    bool up = name.find("upload") != std::string::npos;
    bool is_curl = name.rfind("curl", 0) == 0;
    char ratio[32] = "-", best_ratio[32] = "-";
    if (!is_curl) {
      std::snprintf(ratio, sizeof(ratio), "%.2f", rate / (up ? curl_up : curl_down));
      std::snprintf(best_ratio, sizeof(best_ratio), "%.2f",
                    best / (up ? curl_up_best : curl_down_best));
    }
    std::printf("%-46s %10.1f %10s %10s\n", name.c_str(), rate, ratio, best_ratio);
    std::fprintf(stderr,
                 "{\"bench\":\"%s\",\"mb_per_s\":%.1f,\"best_mb_per_s\":%.1f,\"median_s\":%.3f,"
                 "\"runs\":%d}\n",
                 name.c_str(), rate, best, Median(times[name]), args.runs);
  }
  tarn::S3Stats stats = store.stats();
  std::printf("tarn requests %llu, retries %llu\n", static_cast<unsigned long long>(stats.requests),
              static_cast<unsigned long long>(stats.retries));
  return 0;
}
