// tarn's S3 client against curl on the same transfers to the same gateway in the same run
// (bench/README.md, "Object storage"). Run it against the local Ceph RGW:
//
//   tests/run_with_rgw.sh build/bench/objectstore_bench [--size-mib N] [--runs N] [--dir DIR]
//
// Reads the endpoint, credentials and bucket from the environment that run_with_rgw.sh exports
// (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, TARN_S3_TEST_BUCKET)
// and refuses any endpoint but a loopback one. Each run uploads and downloads one object of
// --size-mib with curl (`--aws-sigv4`, UNSIGNED-PAYLOAD, from a file in the page cache, to
// /dev/null) and with tarn (streaming writer from memory, Get into memory) in alternation;
// medians are printed as a table on stdout and one JSON object per figure on stderr.
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
#include <vector>

#include "objectstore/s3/s3_store.h"

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  uint64_t size_mib = 256;
  uint64_t part_mib = 8;
  int runs = 3;
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
          " (usage: objectstore_bench [--size-mib N] [--runs N] [--dir DIR])");
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
    int concurrency;
    uint64_t max_signed_payload;
  };
  // The default (2 parts in flight, parts unhashed), then what the defaults were chosen over.
  const std::vector<Variant> uploads = {{"tarn upload (8 MiB parts, 2 in flight)", 2, 1 << 20},
                                        {"tarn upload, 1 part in flight", 1, 1 << 20},
                                        {"tarn upload, parts SHA-256 signed", 2, UINT64_MAX}};
  std::vector<std::shared_ptr<tarn::S3ObjectStore>> stores;
  for (const Variant& v : uploads) {
    tarn::S3Options o = *base;
    o.upload_concurrency = v.concurrency;
    o.part_size = args.part_mib << 20;
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
  std::string url_base = endpoint + "/" + bucket + "/" + base->prefix + "/";
  std::vector<std::string> curl_auth = {
      "-sS",         "--fail",
      "--aws-sigv4", "aws:amz:" + base->region + ":s3",
      "--user",      base->access_key_id + ":" + base->secret_access_key,
      "-H",          "x-amz-content-sha256: UNSIGNED-PAYLOAD"};

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
             std::unique_ptr<uint8_t[]> buf(new uint8_t[size]);
             Check((*f)->ReadAt(0, size, buf.get()), "ReadAt");
           }));
    if (run % 2 == 1) curl_down();
    auto check = store.Get("tarn.bin");
    Check(check.status(), "Get");
    if (*check != data) Die("tarn.bin does not hold what was uploaded");
    Check(store.DeleteMany({"tarn.bin", "put.bin", "curl.bin"}), "cleanup");
  }
  std::remove(file.c_str());

  double mb = static_cast<double>(size) / 1e6;
  double curl_up = mb / Median(times["curl upload"]);
  double curl_down = mb / Median(times["curl download"]);
  std::printf("%-42s %10s %12s\n", "transfer (median)", "MB/s", "tarn/curl");
  for (const std::string& name : order) {
    double rate = mb / Median(times[name]);
    bool up = name.find("upload") != std::string::npos;
    bool is_curl = name.rfind("curl", 0) == 0;
    char ratio[32] = "-";
    if (!is_curl) std::snprintf(ratio, sizeof(ratio), "%.2f", rate / (up ? curl_up : curl_down));
    std::printf("%-42s %10.1f %12s\n", name.c_str(), rate, ratio);
    std::fprintf(stderr, "{\"bench\":\"%s\",\"mb_per_s\":%.1f,\"median_s\":%.3f,\"runs\":%d}\n",
                 name.c_str(), rate, Median(times[name]), args.runs);
  }
  tarn::S3Stats stats = store.stats();
  std::printf("tarn requests %llu, retries %llu\n", static_cast<unsigned long long>(stats.requests),
              static_cast<unsigned long long>(stats.retries));
  return 0;
}
