// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/* cxxspin.cpp - a CPU-bound C++ workload whose hot functions have mangled
 * names of each common kind, for the demangling tests: a function in a
 * namespace, a method of a class template, an operator and a lambda.
 *
 * Usage: cxxspin [SECONDS]   (default 5 s; 0 s = forever)
 *
 * Hot functions, as c++filt shows them:
 *   cxxspin::Accumulator<unsigned long>::step(unsigned long)   ~40 %
 *   cxxspin::Vec::operator+(cxxspin::Vec const&) const          ~30 %
 *   cxxspin::churn(int)                                         ~20 %
 *   cxxspin::run(double)::{lambda(unsigned long)#1}::operator()(unsigned long) const  ~10 %
 */
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

namespace cxxspin {

static volatile unsigned long sink;

/* SPIN - a fixed amount of work the optimiser cannot remove, written out
 * in each caller (a macro, not an inlined function, which profiles now
 * show as a frame of its own) so each caller owns its own self time. */
#define SPIN(x0, n0)                                                                               \
	({                                                                                         \
		unsigned long spin_x = (x0), spin_n = (n0);                                        \
		while (spin_n--)                                                                   \
			spin_x = spin_x * 6364136223846793005ul + 1442695040888963407ul;           \
		spin_x;                                                                            \
	})

template <typename T> class Accumulator {
public:
	__attribute__((noinline)) T step(T n)
	{
		total_ = SPIN(total_ + n, 400000);
		return total_;
	}

private:
	T total_ = 1;
};

struct Vec {
	unsigned long x, y;

	__attribute__((noinline)) Vec operator+(const Vec &o) const
	{
		return Vec{ SPIN(x + o.x, 150000), SPIN(y + o.y, 150000) };
	}
};

__attribute__((noinline)) unsigned long churn(int rounds)
{
	unsigned long x = sink;

	for (int i = 0; i < rounds; i++)
		x = SPIN(x, 100000);
	return x;
}

static double now()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

__attribute__((noinline)) void run(double seconds)
{
	Accumulator<unsigned long> acc;
	Vec a{ 1, 2 }, b{ 3, 4 };
	auto tail = [](unsigned long n) __attribute__((noinline)) { return SPIN(n, 100000); };
	double end = now() + seconds;

	while (seconds == 0 || now() < end) {
		sink = acc.step(sink);
		a = a + b;
		sink = sink + a.x + churn(2) + tail(sink);
	}
}

} // namespace cxxspin

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? std::strtod(argv[1], nullptr) : 5;

	std::printf("%d\n", (int)getpid());
	std::fflush(stdout);
	cxxspin::run(seconds);
	return 0;
}
