// Progress of long commands (lab/progress.h).
#include "lab/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "base/clock.h"
#include "base/error.h"
#include "base/json.h"
#include "lab/report_text.h"

namespace tapir {

namespace {

// Columns of the terminal behind `out` (80 when it does not say): the bar
// must never wrap, or "\r" would redraw only its last row.
int terminal_columns(std::FILE* out) {
  winsize size{};
  if (::ioctl(::fileno(out), TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return 80;
}

std::string rate_text(double steps_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, steps_per_s >= 10 ? "%.1f steps/s" : "%.2f steps/s", steps_per_s);
  return buf;
}

}  // namespace

void Progress::check_environment() {
  const char* given = std::getenv("TAPIR_PROGRESS");
  if (given == nullptr) return;
  const std::string_view word = given;
  TAPIR_CHECK(word == "bar" || word == "lines", "TAPIR_PROGRESS: expected bar or lines, got ",
              quoted(word));
}

Progress::Style Progress::style_for(bool quiet) {
  check_environment();
  if (quiet) return Style::quiet;
  if (const char* given = std::getenv("TAPIR_PROGRESS"))
    return std::string_view(given) == "bar" ? Style::bar : Style::lines;
  return ::isatty(STDOUT_FILENO) ? Style::bar : Style::lines;
}

Progress::Progress(Style style, std::FILE* out) : style_(style), out_(out) {}

double Progress::seconds_now() const {
  return now_seconds();
}

void Progress::plan(int runs) {
  runs_ = runs < 1 ? 1 : runs;
  run_ = 0;
  if (!eval_lines_set_) eval_lines_ = runs_ == 1;
}

void Progress::set_eval_lines(bool on) {
  eval_lines_ = on;
  eval_lines_set_ = true;
}

std::string Progress::prefix() const {
  std::string p;
  if (runs_ > 1) p = "[run " + std::to_string(run_) + "/" + std::to_string(runs_) + "] ";
  if (!label_.empty()) p += label_ + " ";
  return p;
}

void Progress::start_run(const std::string& label, int64_t first_step, int64_t steps) {
  ++run_;
  label_ = label;
  first_step_ = step_ = first_step;
  steps_ = steps;
  metric_.clear();
  eval_metric_.clear();
  run_start_ = seconds_now();
  last_draw_ = -1;
}

void Progress::skip_run(const std::string& label, const std::string& summary) {
  ++run_;
  label_ = label;
  line(prefix() + summary);
}

std::string Progress::timing_text(int64_t step, double now_s) const {
  const double elapsed = now_s - run_start_;
  const int64_t done = step - first_step_;
  if (elapsed <= 0 || done <= 0) return "";
  const double rate = double(done) / elapsed;
  std::string text = rate_text(rate) + " ETA " + format_duration(double(steps_ - step) / rate);
  // The whole experiment: the runs to come as long as this one, at the rate
  // of every step trained so far.
  const double all_rate = double(trained_steps_ + done) / (trained_seconds_ + elapsed);
  if (runs_ > run_)
    text += " (all " + format_duration(double(steps_ - step + (runs_ - run_) * steps_) / all_rate) +
            ")";
  return text;
}

std::string Progress::status_text(int64_t step, double now_s) const {
  std::string text = prefix();
  if (steps_ > 0) {
    constexpr int64_t kWidth = 20;
    const int64_t filled = std::clamp<int64_t>(kWidth * step / steps_, 0, kWidth);
    text += '[';
    text.append(static_cast<size_t>(filled), '#');
    text.append(static_cast<size_t>(kWidth - filled), '-');
    text += "] ";
  }
  text += std::to_string(step) + "/" + std::to_string(steps_);
  const std::string timing = timing_text(step, now_s);
  if (!timing.empty()) text += " " + timing;
  const std::string& metric = eval_metric_.empty() ? metric_ : eval_metric_;
  if (!metric.empty()) text += " " + metric;
  return text;
}

void Progress::step(int64_t step, const std::string& metric) {
  step_ = step;
  metric_ = metric;
  if (style_ != Style::bar) return;
  const double now = seconds_now();
  if (now - last_draw_ < 0.2 && step != steps_) return;
  last_draw_ = now;
  std::string text = status_text(step, now);
  const size_t columns = static_cast<size_t>(terminal_columns(out_));
  if (text.size() >= columns) text.resize(columns - 1);
  std::fprintf(out_, "\r\033[K%s", text.c_str());
  std::fflush(out_);
  bar_open_ = true;
}

void Progress::eval(int64_t step, const std::string& metric) {
  step_ = step;
  const size_t cut = metric.find(" | ");
  eval_metric_ = metric.substr(0, cut);  // the first split, for the bar
  if (style_ == Style::quiet) return;
  if (style_ == Style::bar && !eval_lines_) return;
  std::string text =
      prefix() + "step " + std::to_string(step) + "/" + std::to_string(steps_) + ": " + metric;
  if (style_ == Style::lines) {
    const std::string timing = timing_text(step, seconds_now());
    if (!timing.empty()) text += "  (" + timing + ")";
  }
  line(text);
}

void Progress::finish_run(const std::string& summary) {
  const double elapsed = seconds_now() - run_start_;
  trained_steps_ += step_ - first_step_;
  trained_seconds_ += elapsed;
  line(prefix() + summary + " (" + format_duration(elapsed) + ")");
  first_step_ = step_;
  run_start_ = seconds_now();
}

void Progress::clear_bar() {
  if (!bar_open_) return;
  std::fputs("\r\033[K", out_);
  bar_open_ = false;
}

void Progress::write(const std::string& text) {
  std::fputs(text.c_str(), out_);
  std::fflush(out_);
}

void Progress::line(const std::string& text) {
  if (style_ == Style::quiet) return;
  clear_bar();
  write(text + "\n");
}

void Progress::warn(const std::string& text) {
  clear_bar();
  std::fflush(out_);
  std::fprintf(stderr, "tapir: %s\n", text.c_str());
  std::fflush(stderr);
}

TrainEvents Progress::train_events() {
  TrainEvents events;
  if (style_ == Style::quiet) return events;
  events.on_step = [this](const StepStats& s, double) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "loss %.4f", s.loss);
    step(s.step, buf);
  };
  events.on_eval = [this](int64_t at, const std::vector<EvalResult>& results) {
    eval(at, format_eval(results));
  };
  return events;
}

void run_search(Search& search, Progress& progress, const std::string& label) {
  progress.start_run(label, search.steps_done(), search.steps_total());
  Search::Events events;
  struct Window {
    double arch_loss = 0;
    int64_t steps = 0;
  };
  auto window = std::make_shared<Window>();
  events.on_step = [&progress, window](int64_t step, int /*active*/, double arch_loss) {
    window->arch_loss += arch_loss;
    ++window->steps;
    char buf[48];
    std::snprintf(buf, sizeof buf, "D_arch loss %.4f", arch_loss);
    progress.step(step, buf);
  };
  events.on_eval = [&progress, window](int64_t step, double mean_accuracy) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "models' test acc %.4f, D_arch loss %.4f", mean_accuracy,
                  window->steps ? window->arch_loss / double(window->steps) : 0.0);
    *window = Window{};
    progress.eval(step, buf);
  };
  search.run(events);
  progress.finish_run(search.outcome().verdict());
}

}  // namespace tapir
