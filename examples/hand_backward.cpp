// The backward pass of one training step, written by hand: the forward of
// a one-block GPT runs on the naive reference kernels (engine/reference.h)
// over plain arrays, keeping every activation, and then the backward kernels
// run in reverse order, each adding into the gradient arrays of its inputs,
// as llm.c's gpt2_backward does. The same model is then built from the
// engine's ops, and `backward(loss)` walks the tape. Every parameter's
// gradient must agree (f64, within 1e-10 relative).
//
// The one place where the order of the hand-written walk is not enough is
// the residual stream: x feeds both its block and the sum after it, so its
// gradient is the sum of both (+=, not =). The program runs the hand
// backward a second time with that one += written as =, and checks that the
// comparison catches it. Exits 1 unless both hold.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "engine/reference.h"
#include "engine/rng.h"

using namespace tapir;

namespace {

// Batch, context, width, heads, MLP width, vocabulary.
constexpr int64_t B = 2, T = 8, C = 16, H = 2, F = 4 * C, V = 11, BT = B * T;
constexpr double kEps = 1e-5;
using Vec = std::vector<double>;

// The parameters (docs/model.md's names, one block, no head bias), as
// plain arrays, and their gradients in the same order.
struct Params {
  Vec wte = Vec(V * C), wpe = Vec(T * C), ln1_w = Vec(C, 1.0), ln1_b = Vec(C),
      qkv_w = Vec(3 * C * C), qkv_b = Vec(3 * C), proj_w = Vec(C * C), proj_b = Vec(C),
      ln2_w = Vec(C, 1.0), ln2_b = Vec(C), fc_w = Vec(F * C), fc_b = Vec(F), out_w = Vec(C * F),
      out_b = Vec(C), lnf_w = Vec(C, 1.0), lnf_b = Vec(C), head_w = Vec(V * C);
  std::vector<std::pair<const char*, Vec*>> named() {
    return {{"tok_emb.weight", &wte},
            {"pos_emb.weight", &wpe},
            {"blocks.0.ln1.weight", &ln1_w},
            {"blocks.0.ln1.bias", &ln1_b},
            {"blocks.0.attn.qkv.weight", &qkv_w},
            {"blocks.0.attn.qkv.bias", &qkv_b},
            {"blocks.0.attn.proj.weight", &proj_w},
            {"blocks.0.attn.proj.bias", &proj_b},
            {"blocks.0.ln2.weight", &ln2_w},
            {"blocks.0.ln2.bias", &ln2_b},
            {"blocks.0.mlp.fc.weight", &fc_w},
            {"blocks.0.mlp.fc.bias", &fc_b},
            {"blocks.0.mlp.proj.weight", &out_w},
            {"blocks.0.mlp.proj.bias", &out_b},
            {"ln_f.weight", &lnf_w},
            {"ln_f.bias", &lnf_b},
            {"head.weight", &head_w}};
  }
};

// Every activation the backward reads (llm.c's ActivationTensors).
struct Acts {
  Vec tok = Vec(BT * C), pos = Vec(T * C), x0 = Vec(BT * C);  // embeddings, x0 = tok + pos
  Vec h1 = Vec(BT * C), mean1 = Vec(BT), rstd1 = Vec(BT);     // ln1(x0)
  Vec qkv = Vec(BT * 3 * C), probs = Vec(B * H * T * T), att = Vec(BT * C);
  Vec x1 = Vec(BT * C);                                    // x0 + proj(att)
  Vec h2 = Vec(BT * C), mean2 = Vec(BT), rstd2 = Vec(BT);  // ln2(x1)
  Vec f = Vec(BT * F), g = Vec(BT * F);                    // fc(h2), gelu(f)
  Vec x2 = Vec(BT * C);                                    // x1 + proj(g)
  Vec h3 = Vec(BT * C), mean3 = Vec(BT), rstd3 = Vec(BT);  // ln_f(x2)
  Vec logits = Vec(BT * V), ce_probs = Vec(BT * V), row_loss = Vec(BT);
  double loss = 0, count = 0;
};

// y (rows, out) = x (rows, in) W^T + b (+ residual), as the linear op does:
// the bias (and residual) first, the product added on top.
void linear_forward(const Vec& x, const Vec& w, const Vec* b, const Vec* residual, int64_t rows,
                    int64_t in, int64_t out, Vec& y) {
  if (residual && b)
    reference::binary_forward(BinaryOp::add, residual->data(), rows * out, b->data(), out,
                              y.data());
  else if (b)
    reference::broadcast_rows(b->data(), rows, out, y.data());
  const bool accumulate = residual || b;
  reference::gemm(false, true, rows, out, in, 1.0, x.data(), w.data(), accumulate ? 1.0 : 0.0,
                  y.data());
}

// Its backward: dx += dy W, dW += dy^T x, db += the column sums of dy.
void linear_backward(const Vec& x, const Vec& w, const Vec& dy, int64_t rows, int64_t in,
                     int64_t out, Vec& dx, Vec& dw, Vec* db) {
  reference::gemm(false, false, rows, in, out, 1.0, dy.data(), w.data(), 1.0, dx.data());
  reference::gemm(true, false, out, in, rows, 1.0, dy.data(), x.data(), 1.0, dw.data());
  if (db) reference::broadcast_rows_backward(dy.data(), rows, out, db->data());
}

Acts forward(Params& p, const std::vector<int32_t>& ids, const std::vector<int32_t>& positions,
             const std::vector<int32_t>& targets) {
  Acts a;
  reference::embedding_forward(p.wte.data(), ids.data(), BT, C, a.tok.data());
  reference::embedding_forward(p.wpe.data(), positions.data(), T, C, a.pos.data());
  reference::binary_forward(BinaryOp::add, a.tok.data(), BT * C, a.pos.data(), T * C, a.x0.data());
  reference::layernorm_forward(a.x0.data(), p.ln1_w.data(), p.ln1_b.data(), BT, C, kEps,
                               a.h1.data(), a.mean1.data(), a.rstd1.data());
  linear_forward(a.h1, p.qkv_w, &p.qkv_b, nullptr, BT, C, 3 * C, a.qkv);
  reference::attention_forward<double>(a.qkv.data(), B, T, C, H, nullptr, a.probs.data(),
                                       a.att.data());
  linear_forward(a.att, p.proj_w, &p.proj_b, &a.x0, BT, C, C, a.x1);
  reference::layernorm_forward(a.x1.data(), p.ln2_w.data(), p.ln2_b.data(), BT, C, kEps,
                               a.h2.data(), a.mean2.data(), a.rstd2.data());
  linear_forward(a.h2, p.fc_w, &p.fc_b, nullptr, BT, C, F, a.f);
  reference::unary_forward(UnaryOp::gelu, a.f.data(), BT * F, a.g.data());
  linear_forward(a.g, p.out_w, &p.out_b, &a.x1, BT, F, C, a.x2);
  reference::layernorm_forward(a.x2.data(), p.lnf_w.data(), p.lnf_b.data(), BT, C, kEps,
                               a.h3.data(), a.mean3.data(), a.rstd3.data());
  linear_forward(a.h3, p.head_w, nullptr, nullptr, BT, C, V, a.logits);
  a.count =
      reference::cross_entropy_forward<double>(a.logits.data(), targets.data(), nullptr, BT, V,
                                               a.ce_probs.data(), a.row_loss.data(), &a.loss);
  return a;
}

// The backward, the forward read from the bottom up. `residual_fan_out`
// false writes the residual's gradient with = where it must be +=.
Params backward_by_hand(Params& p, const Acts& a, const std::vector<int32_t>& ids,
                        const std::vector<int32_t>& positions, const std::vector<int32_t>& targets,
                        bool residual_fan_out) {
  Params d;  // gradients, the parameters' shapes, all zero
  for (auto& [name, v] : d.named()) std::fill(v->begin(), v->end(), 0.0);
  Vec d_logits(BT * V), d_h3(BT * C), d_x2(BT * C), d_g(BT * F), d_f(BT * F), d_h2(BT * C),
      d_x1(BT * C), d_att(BT * C), d_qkv(BT * 3 * C), d_h1(BT * C), d_x0(BT * C), d_tok(BT * C),
      d_pos(T * C);
  // loss = mean over the BT rows: d loss / d loss = 1, over count rows.
  reference::cross_entropy_backward<double>(a.ce_probs.data(), targets.data(), nullptr, BT, V,
                                            1.0 / a.count, d_logits.data());
  linear_backward(a.h3, p.head_w, d_logits, BT, C, V, d_h3, d.head_w, nullptr);
  reference::layernorm_backward(a.x2.data(), p.lnf_w.data(), a.mean3.data(), a.rstd3.data(),
                                d_h3.data(), BT, C, d_x2.data(), d.lnf_w.data(), d.lnf_b.data());
  // x2 = x1 + proj(g): x1 gets d_x2 through the sum, and later through ln2.
  linear_backward(a.g, p.out_w, d_x2, BT, F, C, d_g, d.out_w, &d.out_b);
  for (int64_t i = 0; i < BT * C; ++i) d_x1[i] += d_x2[i];
  reference::unary_backward(UnaryOp::gelu, a.f.data(), a.g.data(), d_g.data(), BT * F, d_f.data());
  linear_backward(a.h2, p.fc_w, d_f, BT, C, F, d_h2, d.fc_w, &d.fc_b);
  if (residual_fan_out) {
    reference::layernorm_backward(a.x1.data(), p.ln2_w.data(), a.mean2.data(), a.rstd2.data(),
                                  d_h2.data(), BT, C, d_x1.data(), d.ln2_w.data(), d.ln2_b.data());
  } else {  // the mistake: ln2's share overwrites what the sum gave x1
    reference::layernorm_backward(a.x1.data(), p.ln2_w.data(), a.mean2.data(), a.rstd2.data(),
                                  d_h2.data(), BT, C, d_x1.data(), d.ln2_w.data(), d.ln2_b.data(),
                                  /*accumulate_x=*/false);
  }
  // x1 = x0 + proj(att).
  linear_backward(a.att, p.proj_w, d_x1, BT, C, C, d_att, d.proj_w, &d.proj_b);
  for (int64_t i = 0; i < BT * C; ++i) d_x0[i] += d_x1[i];
  reference::attention_backward<double>(a.qkv.data(), nullptr, a.probs.data(), d_att.data(), B, T,
                                        C, H, d_qkv.data());
  linear_backward(a.h1, p.qkv_w, d_qkv, BT, C, 3 * C, d_h1, d.qkv_w, &d.qkv_b);
  reference::layernorm_backward(a.x0.data(), p.ln1_w.data(), a.mean1.data(), a.rstd1.data(),
                                d_h1.data(), BT, C, d_x0.data(), d.ln1_w.data(), d.ln1_b.data());
  // x0 = tok + pos, pos repeated over the batch: its gradient sums over it.
  reference::binary_backward(BinaryOp::add, a.tok.data(), BT * C, a.pos.data(), T * C, d_x0.data(),
                             d_tok.data(), d_pos.data());
  reference::embedding_backward(ids.data(), d_tok.data(), BT, C, d.wte.data());  // scatter-add
  reference::embedding_backward(positions.data(), d_pos.data(), T, C, d.wpe.data());
  return d;
}

// The same model from the engine's ops; the gradients its tape gives.
Params backward_on_tape(Params& p, const std::vector<int32_t>& ids,
                        const std::vector<int32_t>& positions, const std::vector<int32_t>& targets,
                        double& loss_value) {
  // Each parameter a HeapTensor with a gradient buffer, in Params' order.
  const Shape shapes[] = {{V, C}, {T, C}, {C}, {C},    {3 * C, C}, {3 * C}, {C, C}, {C},   {C},
                          {C},    {F, C}, {F}, {C, F}, {C},        {C},     {C},    {V, C}};
  std::vector<HeapTensor> held;
  for (auto& [name, v] : p.named()) {
    held.emplace_back(shapes[held.size()], DType::f64, /*with_grad=*/true);
    held.back().zero_grad();
    std::copy(v->begin(), v->end(), held.back().view().data<double>());
  }
  auto w = [&](size_t k) { return held[k].view(); };
  Tensor x =
      add(embedding(w(0), from_values({B, T}, ids)), embedding(w(1), from_values({T}, positions)));
  Tensor qkv = linear(layernorm(x, w(2), w(3), kEps), w(4), w(5));
  x = linear(attention(qkv, H), w(6), w(7), /*residual=*/x);
  Tensor f = linear(layernorm(x, w(8), w(9), kEps), w(10), w(11));
  x = linear(gelu(f), w(12), w(13), /*residual=*/x);
  Tensor logits = linear(layernorm(x, w(14), w(15), kEps), w(16));
  Tensor loss = cross_entropy(logits, from_values({B, T}, targets));
  loss_value = loss.item();
  backward(loss);
  Params d;
  size_t k = 0;
  for (auto& [name, v] : d.named()) {
    const Tensor g = grad_view(held[k++].view());
    for (int64_t i = 0; i < g.numel(); ++i) (*v)[i] = g.item(i);
  }
  reset_step();
  return d;
}

// The largest |a - b| / max(1, |b|) over every parameter's gradient, and
// where it is.
double largest_gap(Params& a, Params& b, std::string& where) {
  double worst = 0;
  auto na = a.named(), nb = b.named();
  for (size_t k = 0; k < na.size(); ++k)
    for (size_t i = 0; i < na[k].second->size(); ++i) {
      const double x = (*na[k].second)[i], y = (*nb[k].second)[i];
      const double gap = std::fabs(x - y) / std::max(1.0, std::fabs(y));
      if (gap > worst) {
        worst = gap;
        where = na[k].first;
      }
    }
  return worst;
}

}  // namespace

int main() {
  Params p;
  Rng rng(/*seed=*/7);
  for (auto& [name, v] : p.named()) {
    const std::string n = name;
    if (n.ends_with(".weight") && n.find("ln") == std::string::npos)
      rng.fill_normal<double>(v->data(), static_cast<int64_t>(v->size()), 0.0, 0.2);
    else if (n.ends_with(".bias"))
      rng.fill_normal<double>(v->data(), static_cast<int64_t>(v->size()), 0.0, 0.1);
  }
  std::vector<int32_t> ids(BT), targets(BT), positions(T);
  for (int64_t i = 0; i < BT; ++i) {
    ids[i] = static_cast<int32_t>(rng.randint(V));
    targets[i] = static_cast<int32_t>(rng.randint(V));
  }
  for (int64_t t = 0; t < T; ++t) positions[t] = static_cast<int32_t>(t);

  const Acts a = forward(p, ids, positions, targets);
  Params by_hand = backward_by_hand(p, a, ids, positions, targets, /*residual_fan_out=*/true);
  Params forgot = backward_by_hand(p, a, ids, positions, targets, /*residual_fan_out=*/false);
  double tape_loss = 0;
  Params tape = backward_on_tape(p, ids, positions, targets, tape_loss);

  std::string where, where_forgot;
  const double gap = largest_gap(by_hand, tape, where);
  const double gap_forgot = largest_gap(forgot, tape, where_forgot);
  std::printf("loss: by hand %.12f, on the tape %.12f\n", a.loss, tape_loss);
  std::printf("by hand against the tape: largest gradient gap %.2e (%s)\n", gap, where.c_str());
  std::printf("with ln2's share written over the residual's (= for +=): %.2e (%s)\n", gap_forgot,
              where_forgot.c_str());
  const bool ok = gap < 1e-10 && std::fabs(a.loss - tape_loss) < 1e-12 && gap_forgot > 1e-3;
  return ok ? 0 : 1;
}
