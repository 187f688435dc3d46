def f(fd):
	x = fd.ops.add(a, b
	for i in range(3):
		pass
y = 'unterminated
