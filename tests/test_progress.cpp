// Progress (lab/progress.h): what each style writes, and what a person sees
// from the real binary: a bar redrawn in place on a terminal (a pty), and on
// a pipe plain lines that arrive while the command is still running.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "lab/progress.h"

using namespace tapir;

namespace {

// Everything a Progress wrote to its FILE.
struct Captured {
  std::FILE* file = std::tmpfile();
  ~Captured() { std::fclose(file); }
  std::string text() const {
    std::fflush(file);
    std::string out;
    std::rewind(file);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file)) > 0) out.append(buf, n);
    return out;
  }
};

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("lines style: one plain line per evaluation and per run, numbered k of n") {
  Captured c;
  Progress p(Progress::Style::lines, c.file);
  p.plan(2);
  p.start_run("gelu seed 0", 0, 100);
  p.step(10, "loss 2.5000");
  CHECK(c.text().empty());  // steps draw nothing in a file
  p.eval(50, "test acc 0.5000 loss 1.0000 | train acc 0.9000 loss 0.1000");
  p.finish_run("100 steps");
  p.skip_run("gelu seed 1", "finished earlier");
  const std::string out = c.text();
  CHECK(contains(out, "[run 1/2] gelu seed 0 step 50/100: test acc 0.5000 loss 1.0000 | train"));
  CHECK(contains(out, "[run 1/2] gelu seed 0 100 steps ("));
  CHECK(contains(out, "[run 2/2] gelu seed 1 finished earlier\n"));
  CHECK(!contains(out, "\r"));
  CHECK(!contains(out, "\033"));
}

TEST_CASE("quiet style writes nothing") {
  Captured c;
  Progress p(Progress::Style::quiet, c.file);
  p.plan(3);
  p.start_run("a", 0, 10);
  p.step(5, "loss 1");
  p.eval(10, "test acc 1");
  p.finish_run("done");
  p.line("a line");
  CHECK(c.text().empty());
  CHECK(!p.train_events().on_step);
}

TEST_CASE("bar style: a status line redrawn in place, cleared before any other line") {
  Captured c;
  Progress p(Progress::Style::bar, c.file);  // not a terminal: 80 columns assumed
  p.plan(3);
  p.start_run("spline seed 2", 0, 40);
  p.step(20, "loss 0.7000");
  p.line("between");
  p.step(40, "loss 0.1000");  // the last step is always drawn
  const std::string out = c.text();
  CAPTURE(out);
  CHECK(out.rfind("\r\033[K[run 1/3] spline seed 2 [##########----------] 20/40 ", 0) == 0);
  CHECK(contains(out, " steps/s ETA "));
  CHECK(contains(out,
                 "\r\033[Kbetween\n\r\033[K[run 1/3] spline seed 2 [####################] 40/40"));
  // Each drawing fits the line, so that "\r" redraws all of it.
  size_t from = 0;
  while ((from = out.find("\033[K", from)) != std::string::npos) {
    from += 3;
    const size_t end = out.find_first_of("\r\n", from);
    CHECK((end == std::string::npos ? out.size() : end) - from < 80);
  }
}

TEST_CASE("the status text: step, rate, the run's ETA, the experiment's, the latest metric") {
  Captured c;
  Progress p(Progress::Style::lines, c.file);
  p.plan(2);
  p.start_run("x", 0, 1000);
  const double now =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  CHECK(p.timing_text(0, now + 10) == "");  // no step yet: no rate
  p.step(100, "loss 1.0000");
  p.eval(100, "test acc 0.2500 loss 3.0000 | train acc 0.5000 loss 1.0000");
  // About 100 steps in 10 s: 10 steps/s, 90 s to the end of this run, and
  // 190 s in all (the second run as long as this one).
  const std::string status = p.status_text(100, now + 10);
  CAPTURE(status);
  CHECK(status.rfind("[run 1/2] x [##------------------] 100/1000 ", 0) == 0);
  CHECK(contains(status, " steps/s ETA 1m"));
  CHECK(contains(status, "(all 3m"));
  CHECK(contains(status, " test acc 0.2500 loss 3.0000"));  // the bar shows the first split
  CHECK(!contains(status, "train acc"));
}

// --- the binary, on a terminal and on a pipe ------------------------------------

namespace {

std::string scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("tapir_test_progress_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

std::vector<char*> argv_of(std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return argv;
}

// A short training run's options, small enough to take a second or two.
std::vector<std::string> short_run(const std::string& command, const std::string& out,
                                   const std::string& steps) {
  return {TAPIR_BINARY, command, "--task",       "modadd", "--p",     "11",
          "--layers",   "1",     "--width",      "32",     "--batch", "32",
          "--steps",    steps,   "--eval-every", "20",     "--out",   out};
}

}  // namespace

TEST_CASE("on a terminal, train draws a live bar and prints each evaluation above it") {
  const std::string out = scratch("pty");
  std::vector<std::string> args = short_run("train", out, "200");
  std::vector<char*> argv = argv_of(args);
  winsize size{};
  size.ws_row = 40;
  size.ws_col = 160;
  int master = -1;
  const pid_t pid = ::forkpty(&master, nullptr, nullptr, &size);
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  std::string recording;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(master, buf, sizeof buf);
    if (n <= 0) break;  // EIO once the child has exited and closed the pty
    recording.append(buf, static_cast<size_t>(n));
  }
  ::close(master);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::filesystem::remove_all(out);
  CAPTURE(recording);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(contains(recording, "\r\033[K["));  // the bar, redrawn in place
  CHECK(contains(recording, "] 200/200 "));
  CHECK(contains(recording, " steps/s ETA "));
  CHECK(contains(recording, "step 100/200: test acc "));  // evaluations stay above the bar
  CHECK(contains(recording, "done: 200 steps in "));
}

TEST_CASE("on a pipe, compare's lines arrive while it runs, not at exit") {
  const std::string out = scratch("pipe");
  // Long enough that it could not finish before the first line is read.
  std::vector<std::string> args = short_run("compare", out, "1000000");
  args[args.size() - 3] = "100";  // --eval-every
  args.insert(args.end(), {"--seeds", "2"});
  std::vector<char*> argv = argv_of(args);
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  const auto start = std::chrono::steady_clock::now();
  while (!contains(text, "step 200/1000000:") &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(120)) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n <= 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  const bool alive = ::waitpid(pid, nullptr, WNOHANG) == 0;
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ::close(fds[0]);
  std::filesystem::remove_all(out);
  CAPTURE(text);
  CHECK(alive);  // the lines came from a command still running
  CHECK(contains(text, "[run 1/2] baseline seed 0 step 100/1000000: test acc "));
  CHECK(contains(text, "[run 1/2] baseline seed 0 step 200/1000000: test acc "));
  // Written in blocks, nothing would arrive before glibc's 4096-byte buffer
  // filled; line by line, two evaluations are far less.
  CHECK(text.size() < 4096);
  CHECK(!contains(text, "\r"));
}
