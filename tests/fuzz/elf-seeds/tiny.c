/* tiny.c - a freestanding program for the ELF fuzz seeds: a few functions
 * (global, static, weak, an alias, an IFUNC) and no libc. */
static int helper(int x)
{
	return x * 3 + 1;
}

__attribute__((weak)) int weak_fn(int x)
{
	return helper(x) ^ 5;
}

int work(int x)
{
	return weak_fn(x) + helper(x);
}

int work_alias(int x) __attribute__((alias("work")));

static int (*pick(void))(int)
{
	return work;
}

int chosen(int x) __attribute__((ifunc("pick")));

void _start(void)
{
	volatile int r = work(7) + work_alias(1);

	(void)r;
	for (;;)
		__asm__ volatile("hlt");
}
