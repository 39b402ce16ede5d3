// One training step of a one-block GPT, written out top to bottom with the
// engine's ops and no model classes: every parameter, every activation and
// every op of the forward pass in order, then backward and AdamW.
// docs/model.md defines the model this follows (nn/transformer.cpp builds
// it from modules); here attention is spelled out per head from products,
// a mask and a softmax, and checked against the fused attention op.
//
// The model learns to continue a short repeated sentence, character by
// character; exits 1 unless the loss falls to a third of where it started
// and the written-out attention matches the fused op. `transformer_step
// --print-tape` first prints step 1's tape: the ops above in the order they
// ran, then the backward walk (autograd/tape_print.h; TAPIR_PRINT_TAPE=1 in
// the environment does it for any program, on stderr).
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "autograd/ops.h"
#include "autograd/tape.h"
#include "autograd/tape_print.h"
#include "engine/rng.h"
#include "nn/module.h"  // Parameter: a named tensor with a gradient buffer
#include "optim/optimizer.h"

using namespace tapir;

namespace {

// Sizes: batch, context, width, heads, per-head width, MLP width.
constexpr int64_t B = 8, T = 16, C = 32, H = 2, D = C / H, F = 4 * C;

// The parameters, as docs/model.md names them (one block, index 0), with
// two simplifications of that model: the head has no bias (no head.bias),
// and every weight starts at N(0, 0.02^2), where model.md scales the two
// projections' down by sqrt(2L). A Parameter's HeapTensor lives outside the
// step arena and keeps its gradient buffer across steps; weights decay,
// biases and norms do not.
struct Weights {
  std::vector<std::unique_ptr<Parameter>> all;

  Parameter& add(const std::string& name, const Shape& shape, bool decay) {
    all.push_back(std::make_unique<Parameter>());
    Parameter& p = *all.back();
    p.name = name;
    p.value = HeapTensor(shape, DType::f32, /*with_grad=*/true);
    p.decay = decay;
    return p;
  }
  std::vector<Parameter*> list() const {
    std::vector<Parameter*> out;
    for (const auto& p : all) out.push_back(p.get());
    return out;
  }
};

// Step-arena i32 tensors from host values (from_values copies a vector).
Tensor ids_tensor(const Shape& shape, const std::vector<int32_t>& values) {
  return from_values(shape, values, DType::i32);
}

}  // namespace

int main(int argc, char** argv) {
  const bool print_tape = argc > 1 && std::string(argv[1]) == "--print-tape";
  const std::string text = "the quick brown fox jumps over the lazy dog. ";
  std::string alphabet;  // the vocabulary: each character of the text once
  for (char c : text)
    if (alphabet.find(c) == std::string::npos) alphabet += c;
  const int64_t V = static_cast<int64_t>(alphabet.size());

  // --- parameters ---------------------------------------------------------
  Weights w;
  Parameter& wte = w.add("tok_emb.weight", {V, C}, false);  // token embeddings
  Parameter& wpe = w.add("pos_emb.weight", {T, C}, false);  // learned positions
  Parameter& ln1_w = w.add("blocks.0.ln1.weight", {C}, false);
  Parameter& ln1_b = w.add("blocks.0.ln1.bias", {C}, false);
  Parameter& qkv_w = w.add("blocks.0.attn.qkv.weight", {3 * C, C}, true);
  Parameter& qkv_b = w.add("blocks.0.attn.qkv.bias", {3 * C}, false);
  Parameter& proj_w = w.add("blocks.0.attn.proj.weight", {C, C}, true);
  Parameter& proj_b = w.add("blocks.0.attn.proj.bias", {C}, false);
  Parameter& ln2_w = w.add("blocks.0.ln2.weight", {C}, false);
  Parameter& ln2_b = w.add("blocks.0.ln2.bias", {C}, false);
  Parameter& fc_w = w.add("blocks.0.mlp.fc.weight", {F, C}, true);
  Parameter& fc_b = w.add("blocks.0.mlp.fc.bias", {F}, false);
  Parameter& out_w = w.add("blocks.0.mlp.proj.weight", {C, F}, true);
  Parameter& out_b = w.add("blocks.0.mlp.proj.bias", {C}, false);
  Parameter& lnf_w = w.add("ln_f.weight", {C}, false);
  Parameter& lnf_b = w.add("ln_f.bias", {C}, false);
  Parameter& head_w = w.add("head.weight", {V, C}, true);

  // Weights ~ N(0, 0.02^2), biases 0 (HeapTensors start zeroed), norm gains 1.
  Rng rng(/*seed=*/1);
  for (Parameter* p : w.list()) {
    if (p->name.ends_with("ln1.weight") || p->name.ends_with("ln2.weight") ||
        p->name == "ln_f.weight") {
      fill(p->tensor(), 1.0);
    } else if (!p->name.ends_with(".bias")) {
      rng.fill_normal<float>(p->tensor().data<float>(), p->tensor().numel(), 0.0f, 0.02f);
    }
  }
  Adam adamw(w.list(), 0.9, 0.98, 1e-8, /*weight_decay=*/0.1, /*decoupled=*/true);

  // The causal mask, (T, T): 1 where key j comes after query i.
  std::vector<int32_t> future(T * T);
  for (int64_t i = 0; i < T; ++i)
    for (int64_t j = 0; j < T; ++j) future[i * T + j] = j > i ? 1 : 0;
  std::vector<int32_t> positions(T);
  for (int64_t t = 0; t < T; ++t) positions[t] = static_cast<int32_t>(t);

  double first_loss = 0, loss_value = 0, attention_gap = 0;
  const int steps = 150;
  for (int step = 1; step <= steps; ++step) {
    if (step == 1 && print_tape) {  // before the forward: its ops are recorded as they run
      std::vector<std::pair<const TensorImpl*, std::string>> names;
      for (const Parameter* p : w.list()) names.emplace_back(p->value.view().impl(), p->name);
      print_next_backward(stdout, std::move(names));
    }
    // --- a batch: B windows of the repeated text, targets shifted by one --
    std::vector<int32_t> in(B * T), next(B * T);
    for (int64_t b = 0; b < B; ++b) {
      const int64_t start = rng.randint(static_cast<int64_t>(text.size()));
      for (int64_t t = 0; t < T; ++t) {
        in[b * T + t] = static_cast<int32_t>(alphabet.find(text[(start + t) % text.size()]));
        next[b * T + t] = static_cast<int32_t>(alphabet.find(text[(start + t + 1) % text.size()]));
      }
    }
    Tensor ids = ids_tensor({B, T}, in);
    Tensor targets = ids_tensor({B, T}, next);

    // --- forward: each op computes its output and appends a node ----------
    // Embeddings: token rows plus position rows (broadcast over the batch).
    Tensor x =
        add(embedding(wte.tensor(), ids), embedding(wpe.tensor(), ids_tensor({T}, positions)));

    // Attention sub-block: x + proj(attention(ln1(x))).
    Tensor h = layernorm(x, ln1_w.tensor(), ln1_b.tensor());
    Tensor qkv = linear(h, qkv_w.tensor(), qkv_b.tensor());  // (B, T, 3C): [q | k | v]
    Tensor mask = ids_tensor({T, T}, future);
    Tensor heads[H];
    for (int64_t hd = 0; hd < H; ++hd) {
      Tensor q = slice(qkv, 2, hd * D, (hd + 1) * D);  // (B, T, D)
      Tensor k = slice(qkv, 2, C + hd * D, C + (hd + 1) * D);
      Tensor v = slice(qkv, 2, 2 * C + hd * D, 2 * C + (hd + 1) * D);
      Tensor scores = affine(matmul(q, k, false, /*trans_b=*/true), 1.0 / std::sqrt(double(D)));
      scores = masked_fill(scores, mask, -std::numeric_limits<double>::infinity());
      heads[hd] = matmul(softmax(scores), v);  // (B, T, D)
    }
    Tensor attended = concat({heads[0], heads[1]}, 2);  // (B, T, C)
    {
      // The fused op computes the same (engine/kernel_list.inc has its
      // formula); outside grad mode it adds nothing to the tape.
      NoGrad no_grad;
      Tensor fused = attention(qkv, H);
      for (int64_t i = 0; i < fused.numel(); ++i)
        attention_gap = std::max(attention_gap, std::abs(fused.item(i) - attended.item(i)));
    }
    x = linear(attended, proj_w.tensor(), proj_b.tensor(), /*residual=*/x);

    // MLP sub-block: x + proj(gelu(fc(ln2(x)))).
    h = layernorm(x, ln2_w.tensor(), ln2_b.tensor());
    x = linear(gelu(linear(h, fc_w.tensor(), fc_b.tensor())), out_w.tensor(), out_b.tensor(), x);

    // Head and loss: the mean cross-entropy of the next character.
    Tensor logits = linear(layernorm(x, lnf_w.tensor(), lnf_b.tensor()), head_w.tensor());
    Tensor loss = cross_entropy(logits, targets);
    loss_value = loss.item();
    if (step == 1) first_loss = loss_value;

    // --- backward and update -------------------------------------------------
    adamw.zero_grad();
    backward(loss);  // walks the tape in reverse: every parameter's gradient
    adamw.step(/*lr=*/3e-3);
    reset_step();  // frees every activation of this step

    if (step == 1 || step % 25 == 0) std::printf("step %3d  loss %.4f\n", step, loss_value);
  }

  std::printf("loss %.4f -> %.4f (chance: ln %lld = %.4f); written-out attention vs fused: %.1e\n",
              first_loss, loss_value, static_cast<long long>(V), std::log(double(V)),
              attention_gap);
  return loss_value < first_loss / 3 && attention_gap < 1e-5 ? 0 : 1;
}
