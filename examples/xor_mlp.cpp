// An MLP learns XOR: the smallest whole training loop on tapir's tape.
//
// Four inputs, two classes: (0,0) and (1,1) are class 0, (0,1) and (1,0)
// class 1. No straight line separates them, so the model needs its hidden
// layer. Each step runs the forward pass (every op appends a node to the
// tape), backward() walks the tape in reverse and fills the parameters'
// gradients, and AdamW updates the parameters. Built against the installed
// engine (examples/CMakeLists.txt); exits 1 unless all four points come out
// right.
#include <cstdio>

#include "autograd/ops.h"     // the differentiable ops: linear, tanh, cross_entropy, ...
#include "autograd/tape.h"    // backward(), reset_step(), NoGrad
#include "engine/rng.h"       // Rng: seeded, the same draws on every machine
#include "nn/layers.h"        // Linear, a Module with a weight and a bias
#include "optim/optimizer.h"  // Adam (decoupled = true is AdamW)

using namespace tapir;

// A module owns its parameters; children register under a name, so the
// parameters are "hidden.weight", "hidden.bias", "out.weight", "out.bias".
class Mlp : public Module {
 public:
  explicit Mlp(int64_t width) : hidden_(2, width), out_(width, 2) {
    add_child("hidden", hidden_);
    add_child("out", out_);
  }
  void init(Rng& rng) {
    hidden_.init(rng, 1.0);  // weights ~ N(0, 1), biases 0
    out_.init(rng, 0.5);
  }
  // x (4, 2) -> logits (4, 2): out(tanh(hidden(x))).
  Tensor forward(Tensor x) { return out_.forward(tapir::tanh(hidden_.forward(x))); }

 private:
  Linear hidden_;
  Linear out_;
};

int main() {
  Mlp model(8);
  Rng rng(/*seed=*/7);
  model.init(rng);
  Adam optimizer(model.parameters(), 0.9, 0.999, 1e-8, /*weight_decay=*/0.0, /*decoupled=*/true);

  double loss_value = 0;
  for (int step = 1; step <= 300; ++step) {
    // Inputs and targets are made in the step arena, like every activation:
    // reset_step() below frees them all at once.
    Tensor x = from_values({4, 2}, {0, 0, 0, 1, 1, 0, 1, 1});
    Tensor y = from_values({4}, {0, 1, 1, 0}, DType::i32);

    optimizer.zero_grad();                             // gradients accumulate: clear them first
    Tensor loss = cross_entropy(model.forward(x), y);  // forward: 4 nodes on the tape
    loss_value = loss.item();
    backward(loss);  // reverse walk: parameter gradients filled
    optimizer.step(/*lr=*/0.05);
    reset_step();  // the step's tensors are gone from here on

    if (step % 100 == 0) std::printf("step %3d  loss %.4f\n", step, loss_value);
  }

  // Evaluation records nothing on the tape.
  NoGrad no_grad;
  Tensor logits = model.forward(from_values({4, 2}, {0, 0, 0, 1, 1, 0, 1, 1}));
  const int expected[4] = {0, 1, 1, 0};
  int right = 0;
  for (int i = 0; i < 4; ++i) {
    const int predicted = logits.item(2 * i + 1) > logits.item(2 * i) ? 1 : 0;
    std::printf("xor(%d, %d) = %d\n", i / 2, i % 2, predicted);
    right += predicted == expected[i];
  }
  reset_step();
  std::printf("%d of 4 right, final loss %.4f\n", right, loss_value);
  return right == 4 && loss_value < 0.05 ? 0 : 1;
}
