/* The changes of propagation blocking as they travel (propagate.h):
 * bfloat16 rounding against values worked out by hand from its layout
 * (sign, 8 bits of exponent, 7 of mantissa), and error feedback, which
 * must leave the sum sent equal to x but for the last rounding. */
#include <math.h>
#include <stdint.h>

#include "propagate.h"
#include "tap.h"

static void
pack_is(float f, uint16_t want, const char *what)
{
	uint16_t got = propagation_pack(f);
	if (!ok(got == want, "%s packs to 0x%04x", what, want))
		diag("got 0x%04x", got);
}

int
main(void)
{
	pack_is(1.0f, 0x3f80, "1");
	pack_is(-1.5f, 0xbfc0, "-1.5");
	pack_is(0.0f, 0x0000, "0");
	pack_is(1.0f + 0x1p-8f, 0x3f80, "1 + 2^-8, a tie, to the even 1");
	pack_is(1.0f + 3 * 0x1p-8f, 0x3f82, "1 + 3*2^-8, a tie, to the even 1 + 2^-6");
	pack_is(1.0f + 0x1p-8f + 0x1p-20f, 0x3f81, "just above a tie, up to 1 + 2^-7");
	pack_is(1.0f + 0x1p-8f - 0x1p-20f, 0x3f80, "just below a tie, down to 1");
	pack_is(0x1.fep127f, 0x7f7f, "the largest bfloat16");
	ok(propagation_unpack(0x3f81) == 1.0f + 0x1p-7f, "0x3f81 unpacks to 1 + 2^-7");
	ok(propagation_unpack(0xc040) == -3.0f, "0xc040 unpacks to -3");

	/* x sent again and again: each change carries the rounding of the
	 * one before, 2^-9 of it at most. */
	double x = 1.0 / 3, sent = 0, sum = 0, left[8];
	for (int k = 0; k < 8; k++) {
		sum += propagation_unpack(propagation_change(x, &sent, 1));
		left[k] = fabs(x - sent);
	}
	ok(sum == sent, "sent is the sum of the changes as they arrive");
	ok(left[0] > 0 && left[0] <= x * 0x1p-8, "the first change is x rounded: %.3g", left[0]);
	ok(left[1] <= left[0] * 0x1p-8 && left[2] <= left[1] * 0x1p-8,
	    "each change sends what the one before left out: %.3g, %.3g", left[1], left[2]);
	ok(left[7] <= x * 0x1p-52, "eight changes send x to its last bit: %.3g", left[7]);

	/* The sweep before scaled by stale_scale: what was sent counts as
	 * scaled, so only the difference from the scaled sum goes out. */
	sent = 0.5;
	float change = propagation_unpack(propagation_change(0.25, &sent, 0.5));
	ok(change == 0 && sent == 0.25, "x equal to the scaled sum sends nothing");
	return done_testing();
}
