#include <cstdio>

int main(int argc, char** argv) {
  std::puts("tarn");
  return 0;
}
