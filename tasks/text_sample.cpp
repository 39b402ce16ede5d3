// The built-in sample text (tasks/text_sample.h).
#include "tasks/text_sample.h"

namespace tapir {

namespace {

constexpr std::string_view kSample = R"(The Clock Mender of Harrow Lane

At the bottom of Harrow Lane, where the cobbles give way to a strip of gravel
and then to the towpath, there is a narrow shop with a green door. A painted
board above the window says REPAIRS in letters that were once gold. Inside,
on every shelf and on most of the floor, there are clocks: tall ones with
brass pendulums, squat ones with cracked enamel faces, alarm clocks with two
bells like ears, and a long row of pocket watches laid out on felt as if they
were asleep.

The woman who keeps the shop opens it at eight, not because anyone comes at
eight but because she likes to hear the clocks start the day with her. She
winds the ones that need winding, sets the ones that have wandered, and
listens. A clock that is about to fail, she says, sounds tired before it
stops. The tick gets thin. The tock comes a little late, as if it had to
think about it.

Most of her work is cleaning. Oil turns to varnish over the years, and dust
finds its way into places that no one has opened since the clock was made.
She takes each movement apart on a square of white cloth, laying the wheels
out in the order they came off, and washes them in a small dish. Then she
dries them, peg-cleans the pivot holes with slivers of soft wood, and puts
the whole thing back together with one drop of fresh oil where oil belongs
and none anywhere else. Too much oil, she tells her nephew, is worse than
none at all: it gathers grit and turns into a paste that grinds the brass.

Her nephew comes on Saturdays. He is fourteen and impatient, and he would
rather the clocks were faster to fix. Why not replace the whole movement, he
asks, with a quartz one from a box? It would keep better time and it would
never need oil. She agrees that it would keep better time. Then she hands
him a loupe and a mantel clock that has not run since before he was born,
and tells him to find out why.

It takes him the whole morning. The mainspring is fine. The train of wheels
turns freely when he pushes it with a finger. The escapement looks whole.
At last he sees it: one tooth of the escape wheel is bent, very slightly,
so that once in every revolution the pallet catches on it and the clock
stops. It is not a large fault. It is a fault the size of an eyelash. He
straightens it with a pair of fine pliers, and the clock runs, and he is
surprised at how pleased he is.

In the afternoon the customers come. An old man brings a carriage clock that
belonged to his father and asks whether it can be made to strike again. A
young couple bring a kitchen clock they found in the attic of the house they
have just bought; they do not know whose it was, but it seems wrong to throw
it away. A schoolteacher brings a wristwatch that stopped on the day her
exams were marked, which she says is a coincidence, though she smiles when
she says it.

The mender writes each job on a card in pencil: the name, the clock, what is
wrong with it, what she thinks it will cost, and a date. The dates are
always later than people hope. Good work, she says, cannot be hurried, but it
can be started, and the card is a promise that it has been.

When the light goes, she closes the shutters and the shop becomes a room
full of small sounds. No two clocks agree. Some run a few seconds fast and
some a few seconds slow, and the ticks drift in and out of step like people
walking together who keep changing their pace. Every hour there is a long
ragged chord as the striking clocks reach the hour one after another, the
nearest first and the deep old longcase in the back last of all, a full
half minute behind the others. She has never set it right. She says it has
earned the right to be late.

Her nephew asked her once what the shop was for, really, when every phone
in the street knows the time to the hundredth of a second. She thought about
it while she oiled a balance wheel. A clock, she said at last, is a promise
that tomorrow will be measured in the same units as today. People bring them
here because they want to keep that promise for someone. The time is the
least of it.

He did not understand her then. But the next Saturday he came early, before
eight, and stood by the door and listened to the clocks start the day.

Notes kept on the back of the order cards

Wednesday. Longcase from the farm on the ridge: crutch loose, pendulum rod
rusted through at the top. Made a new rod from steel wire, blued it over
the spirit lamp. Beat set by ear; still a touch uneven.

Thursday. Three pocket watches from the auction house. Two were only dirty.
The third has a broken balance staff, which means turning a new one on the
lathe. Ordered a length of silver steel. Told them a fortnight.

Friday. The carriage clock strikes again. The hammer spring was fine; the
trouble was a warning pin worn flat, so the count wheel never released.
Filed a new pin, tested it for an afternoon. It struck four hundred and
twelve times without a fault, which is enough to believe.

Saturday. Rain all day and no customers. Showed the boy how to make a
bushing: drill the worn hole out true, press in a short brass tube, then
broach it to fit the pivot. He made two that were too loose and one that
was right. He kept the right one in his pocket for the rest of the day.
)";

}  // namespace

std::string_view text_sample() {
  return kSample;
}

}  // namespace tapir
