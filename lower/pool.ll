; graphc's default thread pool (pool.go): the parallel-for that ENTRY hands its kernels when the
; caller gives none, over POSIX threads. It is parsed by pool.go and added to hosted modules.
;
; One job at a time: a caller claims the pool (busy 0 -> 1), publishes the job under the mutex,
; wakes the workers (condition variable) and runs chunks itself. The iterations are cut into
; lanes of whole grains, one per thread (the caller is thread 0, worker k thread k); each lane
; hands out its chunks (whole grains) by an atomic counter, and thread k takes chunks from lane k first, then
; from the others in turn. So thread k computes the same part of every kernel split the same
; way, the part of the next kernel's operands it wrote itself, while its cache still holds it:
; handing out chunks from one counter, which scattered every tensor over both cores' caches
; at random, left MobileNet no faster on two threads than on one (serial kernels after split
; ones ran up to 3x slower, their operands in the other core's cache). A thread that is late or
; slow has its lane taken by the others. A worker joins a job under the mutex
; (active + 1) unless every iteration ran, and leaves it under the mutex (active - 1); the
; caller returns once every iteration ran: a worker still inside the job finds no chunk left and
; never calls the job's function again, and the next job is published only once no worker is
; inside the last one (so that none takes a chunk of the new job for the old function). A
; caller that finds the pool busy (another thread's job) or runs on a worker or
; inside a job (nesting) runs its loop serially: the pool never holds more than its threads.
;
; Waiting spins briefly before it sleeps (graphc.pool.spin: at most 100 µs of the monotonic
; clock, never more): a worker that finished a job watches for the next one, the caller watches
; for the last chunk a worker runs and for workers leaving the last job. Waking a sleeping thread
; takes 5-50 µs, as long as a whole small kernel: a network of many small parallel kernels
; (MobileNet) ran no faster on two threads than on one with sleeping alone.
;
; When the module is unloaded (dlclose of a shared library) or the process exits, a destructor
; stops the workers and joins them, so that no thread is left running code or waiting on memory
; that goes away.
;
; Workers are started on first use: GRAPHC_NUM_THREADS threads when set to a positive number
; (at most 256), else the number of online CPUs (sysconf), at most 16; the caller is one of
; them.

@graphc.pool.mu = internal global [64 x i8] zeroinitializer, align 16
@graphc.pool.work = internal global [64 x i8] zeroinitializer, align 16
@graphc.pool.done = internal global [64 x i8] zeroinitializer, align 16
@graphc.pool.once = internal global i32 0, align 4
@graphc.pool.busy = internal global i32 0, align 4
@graphc.pool.threads = internal global i64 1, align 8
@graphc.pool.gen = internal global i64 0, align 8
@graphc.pool.active = internal global i64 0, align 8
@graphc.pool.fn = internal global void (i8*, i64, i64)* null, align 8
@graphc.pool.ctx = internal global i8* null, align 8
@graphc.pool.n = internal global i64 0, align 8
@graphc.pool.chunk = internal global i64 0, align 8
; the lanes: lane j of a job holds [next, end) of the iterations thread j takes first (8 i64
; per lane: a cache line each)
@graphc.pool.lanes = internal global [2048 x i64] zeroinitializer, align 64
@graphc.pool.remaining = internal global i64 0, align 64
@graphc.pool.inside = internal thread_local global i32 0, align 4
@graphc.pool.stop = internal global i32 0, align 4
@graphc.pool.tids = internal global [256 x i64] zeroinitializer, align 8
@llvm.global_dtors = appending global [1 x { i32, void ()*, i8* }] [{ i32, void ()*, i8* } { i32 65535, void ()* @graphc.pool.shutdown, i8* null }]
; (in a struct: tests of --weights check that no array constant, a weight, is in the module)
@graphc.pool.env = internal constant { [19 x i8] } { [19 x i8] c"GRAPHC_NUM_THREADS\00" }, align 1

declare i32 @pthread_create(i64*, i8*, i8* (i8*)*, i8*)
declare i32 @pthread_mutex_lock(i8*)
declare i32 @pthread_mutex_trylock(i8*)
declare i32 @pthread_mutex_unlock(i8*)
declare i32 @pthread_cond_wait(i8*, i8*)
declare i32 @pthread_cond_broadcast(i8*)
declare i32 @pthread_once(i32*, void ()*)
declare i32 @pthread_join(i64, i8**)
declare i8* @getenv(i8*)
declare i64 @strtol(i8*, i8**, i32)
declare i64 @sysconf(i32)
declare i32 @clock_gettime(i32, { i64, i64 }*)
; (graphc.pool.relax, the CPU's spin-wait hint, is defined by pool.go for the target)

define internal void @graphc.pool.init() nounwind {
entry:
	%env = call i8* @getenv(i8* getelementptr ({ [19 x i8] }, { [19 x i8] }* @graphc.pool.env, i64 0, i32 0, i64 0))
	%has = icmp ne i8* %env, null
	br i1 %has, label %parse, label %cpus

parse:
	%v = call i64 @strtol(i8* %env, i8** null, i32 10)
	%pos = icmp sgt i64 %v, 0
	%vcap.c = icmp slt i64 %v, 256
	%vcap = select i1 %vcap.c, i64 %v, i64 256
	br i1 %pos, label %start, label %cpus

cpus:
	%c = call i64 @sysconf(i32 84) ; _SC_NPROCESSORS_ONLN
	%c1.c = icmp sgt i64 %c, 1
	%c1 = select i1 %c1.c, i64 %c, i64 1
	%ccap.c = icmp slt i64 %c1, 16
	%ccap = select i1 %ccap.c, i64 %c1, i64 16
	br label %start

start:
	%want = phi i64 [ %vcap, %parse ], [ %ccap, %cpus ]
	br label %loop

loop:
	%k = phi i64 [ 1, %start ], [ %k1, %made ]
	%more = icmp slt i64 %k, %want
	br i1 %more, label %create, label %out

create:
	%tid = getelementptr [256 x i64], [256 x i64]* @graphc.pool.tids, i64 0, i64 %k
	%karg = inttoptr i64 %k to i8*
	%rc = call i32 @pthread_create(i64* %tid, i8* null, i8* (i8*)* @graphc.pool.worker, i8* %karg)
	%ok = icmp eq i32 %rc, 0
	br i1 %ok, label %made, label %out

made:
	%k1 = add i64 %k, 1
	br label %loop

out:
	store i64 %k, i64* @graphc.pool.threads, align 8
	ret void
}

; run takes chunks of the current job until none is left, as thread k: first from its own lane
; (half of what is left at a time), then from the others' in turn (one chunk at a time); the
; thread that runs the last iterations wakes the caller.
define internal void @graphc.pool.run(void (i8*, i64, i64)* %fn, i8* %ctx, i64 %n, i64 %chunk, i64 %k) nounwind {
entry:
	%t = load i64, i64* @graphc.pool.threads, align 8
	br label %lane

lane:
	%i = phi i64 [ 0, %entry ], [ %i1, %lanedone ]
	%more = icmp slt i64 %i, %t
	br i1 %more, label %pick, label %out

pick:
	%j0 = add i64 %k, %i
	%wrap = icmp sge i64 %j0, %t
	%j1 = sub i64 %j0, %t
	%j = select i1 %wrap, i64 %j1, i64 %j0
	%at = mul i64 %j, 8
	%nextp = getelementptr [2048 x i64], [2048 x i64]* @graphc.pool.lanes, i64 0, i64 %at
	%at1 = add i64 %at, 1
	%endp = getelementptr [2048 x i64], [2048 x i64]* @graphc.pool.lanes, i64 0, i64 %at1
	%end = load atomic i64, i64* %endp monotonic, align 8
	br label %take

take:
	%own = icmp eq i64 %i, 0
	br i1 %own, label %guided, label %grab

guided:
	; from its own lane a thread takes half of what is left (whole chunks, at least one):
	; fewer calls of the job's function (a register-tile kernel packs its panels again in each
	; call) while the last chunks stay single for the others to take
	%cur = load atomic i64, i64* %nextp monotonic, align 8
	%rem = sub i64 %end, %cur
	%half = sdiv i64 %rem, 2
	%hc = sdiv i64 %half, %chunk
	%hk = mul i64 %hc, %chunk
	%big = icmp sgt i64 %hk, %chunk
	%take.k = select i1 %big, i64 %hk, i64 %chunk
	br label %grab

grab:
	%size = phi i64 [ %take.k, %guided ], [ %chunk, %take ]
	%b = atomicrmw add i64* %nextp, i64 %size monotonic
	%left = icmp slt i64 %b, %end
	br i1 %left, label %call, label %lanedone

call:
	%e0 = add i64 %b, %size
	%e.c = icmp slt i64 %e0, %end
	%e = select i1 %e.c, i64 %e0, i64 %end
	call void %fn(i8* %ctx, i64 %b, i64 %e)
	%cnt = sub i64 %e, %b
	%before = atomicrmw sub i64* @graphc.pool.remaining, i64 %cnt acq_rel
	%last = icmp eq i64 %before, %cnt
	br i1 %last, label %wake, label %take

wake:
	%0 = call i32 @graphc.pool.lock()
	%1 = call i32 @pthread_cond_broadcast(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.done, i64 0, i64 0))
	%2 = call i32 @pthread_mutex_unlock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	br label %take

lanedone:
	%i1 = add i64 %i, 1
	br label %lane

out:
	ret void
}

; graphc.pool.spin returns once (*p == v) != eq, or after at most 100 µs (CLOCK_MONOTONIC): the
; caller re-checks what it waits for under the mutex and sleeps when it must.
define internal void @graphc.pool.spin(i64* %p, i64 %v, i1 %eq) nounwind {
entry:
	%ts = alloca { i64, i64 }, align 8
	%sec.p = getelementptr { i64, i64 }, { i64, i64 }* %ts, i64 0, i32 0
	%nsec.p = getelementptr { i64, i64 }, { i64, i64 }* %ts, i64 0, i32 1
	%0 = call i32 @clock_gettime(i32 1, { i64, i64 }* %ts) ; CLOCK_MONOTONIC
	%sec0 = load i64, i64* %sec.p, align 8
	%nsec0 = load i64, i64* %nsec.p, align 8
	%s0 = mul i64 %sec0, 1000000000
	%t0 = add i64 %s0, %nsec0
	br label %check

check:
	%i = phi i64 [ 0, %entry ], [ %i1, %relax ], [ %i1, %clock ]
	%x = load atomic i64, i64* %p acquire, align 8
	%same = icmp eq i64 %x, %v
	%waiting = icmp eq i1 %same, %eq
	br i1 %waiting, label %relax, label %out

relax:
	call void @graphc.pool.relax()
	%i1 = add i64 %i, 1
	%m = and i64 %i1, 31
	%look = icmp eq i64 %m, 0
	br i1 %look, label %clock, label %check

clock:
	%1 = call i32 @clock_gettime(i32 1, { i64, i64 }* %ts)
	%sec1 = load i64, i64* %sec.p, align 8
	%nsec1 = load i64, i64* %nsec.p, align 8
	%s1 = mul i64 %sec1, 1000000000
	%t1 = add i64 %s1, %nsec1
	%dt = sub i64 %t1, %t0
	%more = icmp slt i64 %dt, 100000
	br i1 %more, label %check, label %out

out:
	ret void
}

; graphc.pool.lock locks the mutex, trying a moment (4096 spin-wait hints, a few µs) before it
; blocks: the mutex is held for a few instructions at a time, and a thread that blocks on it
; waits for the holder's unlock to wake it (5-50 µs), which made a worker that saw a new job
; while the caller still published it join late.
define internal i32 @graphc.pool.lock() nounwind {
entry:
	br label %try

try:
	%i = phi i64 [ 0, %entry ], [ %i1, %again ]
	%rc = call i32 @pthread_mutex_trylock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	%ok = icmp eq i32 %rc, 0
	br i1 %ok, label %out, label %again

again:
	call void @graphc.pool.relax()
	%i1 = add i64 %i, 1
	%more = icmp slt i64 %i1, 4096
	br i1 %more, label %try, label %block

block:
	%rc2 = call i32 @pthread_mutex_lock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	ret i32 %rc2

out:
	ret i32 0
}

define internal i8* @graphc.pool.worker(i8* %arg) nounwind {
entry:
	%self = ptrtoint i8* %arg to i64
	store i32 1, i32* @graphc.pool.inside, align 4
	%0 = call i32 @graphc.pool.lock()
	br label %wait

wait:
	; (fresh: the worker has not spun since it last woke or left a job)
	%seen = phi i64 [ 0, %entry ], [ %seen, %slept ], [ %seen, %spun ], [ %gen, %left ], [ %gen, %late ]
	%fresh = phi i1 [ true, %entry ], [ true, %slept ], [ false, %spun ], [ true, %left ], [ true, %late ]
	%gen = load atomic i64, i64* @graphc.pool.gen monotonic, align 8
	%new = icmp ne i64 %gen, %seen
	br i1 %new, label %join, label %stopping

stopping:
	%st = load i32, i32* @graphc.pool.stop, align 4
	%quit = icmp ne i32 %st, 0
	br i1 %quit, label %exit, label %rest

exit:
	%unlocked = call i32 @pthread_mutex_unlock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	ret i8* null

rest:
	br i1 %fresh, label %spin, label %sleep

spin:
	; watch for the next job a moment before sleeping
	%s0 = call i32 @pthread_mutex_unlock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	call void @graphc.pool.spin(i64* @graphc.pool.gen, i64 %seen, i1 true)
	%s1 = call i32 @graphc.pool.lock()
	br label %spun

spun:
	br label %wait

sleep:
	%1 = call i32 @pthread_cond_wait(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.work, i64 0, i64 0), i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	br label %slept

slept:
	br label %wait

join:
	; a worker that wakes after every iteration ran leaves the job alone
	%rem = load atomic i64, i64* @graphc.pool.remaining monotonic, align 64
	%over = icmp sle i64 %rem, 0
	br i1 %over, label %late, label %enter

late:
	br label %wait

enter:
	%a = load atomic i64, i64* @graphc.pool.active monotonic, align 8
	%a1 = add i64 %a, 1
	store atomic i64 %a1, i64* @graphc.pool.active monotonic, align 8
	%fn = load void (i8*, i64, i64)*, void (i8*, i64, i64)** @graphc.pool.fn, align 8
	%ctx = load i8*, i8** @graphc.pool.ctx, align 8
	%n = load i64, i64* @graphc.pool.n, align 8
	%chunk = load i64, i64* @graphc.pool.chunk, align 8
	%2 = call i32 @pthread_mutex_unlock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	call void @graphc.pool.run(void (i8*, i64, i64)* %fn, i8* %ctx, i64 %n, i64 %chunk, i64 %self)
	%3 = call i32 @graphc.pool.lock()
	%b = load atomic i64, i64* @graphc.pool.active monotonic, align 8
	%b1 = sub i64 %b, 1
	store atomic i64 %b1, i64* @graphc.pool.active release, align 8
	%idle = icmp eq i64 %b1, 0
	br i1 %idle, label %wake, label %left

wake:
	%4 = call i32 @pthread_cond_broadcast(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.done, i64 0, i64 0))
	br label %left

left:
	br label %wait
}

; graphc.pool.parallel_for is the default pool's graphc_parallel_for_fn (the pool argument is
; unused: the pool is the module's).
define internal void @graphc.pool.parallel_for(i8* %pool, void (i8*, i64, i64)* %fn, i8* %ctx, i64 %n, i64 %grain) nounwind {
entry:
	%none = icmp sle i64 %n, 0
	br i1 %none, label %out, label %nested

nested:
	%in = load i32, i32* @graphc.pool.inside, align 4
	%isin = icmp ne i32 %in, 0
	br i1 %isin, label %serial, label %start

start:
	%0 = call i32 @pthread_once(i32* @graphc.pool.once, void ()* @graphc.pool.init)
	%t = load i64, i64* @graphc.pool.threads, align 8
	%g.c = icmp sgt i64 %grain, 1
	%g = select i1 %g.c, i64 %grain, i64 1
	%one = icmp sle i64 %t, 1
	%small = icmp sle i64 %n, %g
	%no = or i1 %one, %small
	br i1 %no, label %serial, label %claim

claim:
	; (an exchange: writing 1 over the 1 of another caller's job changes nothing)
	%was = atomicrmw xchg i32* @graphc.pool.busy, i32 1 acquire
	%won = icmp eq i32 %was, 0
	br i1 %won, label %publish, label %serial

publish:
	; chunks: about four per thread, whole multiples of the grain
	%tiles = sdiv i64 %n, %g
	%per0 = mul i64 %t, 4
	%per1 = sdiv i64 %tiles, %per0
	%per.c = icmp sgt i64 %per1, 1
	%per = select i1 %per.c, i64 %per1, i64 1
	%chunk = mul i64 %per, %g
	; workers still inside the last job (they found no chunk left) leave it in a moment
	call void @graphc.pool.spin(i64* @graphc.pool.active, i64 0, i1 false)
	%1 = call i32 @graphc.pool.lock()
	br label %drain

drain:
	; workers still inside the last job (they found no chunk left) leave it first
	%act = load atomic i64, i64* @graphc.pool.active monotonic, align 8
	%busy = icmp ne i64 %act, 0
	br i1 %busy, label %drainwait, label %set

drainwait:
	%2 = call i32 @pthread_cond_wait(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.done, i64 0, i64 0), i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	br label %drain

set:
	store void (i8*, i64, i64)* %fn, void (i8*, i64, i64)** @graphc.pool.fn, align 8
	store i8* %ctx, i8** @graphc.pool.ctx, align 8
	store i64 %n, i64* @graphc.pool.n, align 8
	store i64 %chunk, i64* @graphc.pool.chunk, align 8
	store atomic i64 %n, i64* @graphc.pool.remaining monotonic, align 64
	; lane j: grains [j·G/t, (j+1)·G/t) of the G = ceil(n / grain), so that the lanes are
	; equal to a grain (lanes of whole chunks, 5 and 6 chunks of 2 of a convolution's 22
	; column tiles, left one thread 2 tiles behind the other: 8% of ResNet-50's last convolutions)
	%c0 = add i64 %n, %g
	%c1 = sub i64 %c0, 1
	%nc = sdiv i64 %c1, %g
	br label %lanes

lanes:
	%lj = phi i64 [ 0, %set ], [ %lj1, %lanes ]
	%lc0 = mul i64 %lj, %nc
	%lc = sdiv i64 %lc0, %t
	%lo0 = mul i64 %lc, %g
	%lo.c = icmp slt i64 %lo0, %n
	%lo = select i1 %lo.c, i64 %lo0, i64 %n
	%lj1 = add i64 %lj, 1
	%hc0 = mul i64 %lj1, %nc
	%hc = sdiv i64 %hc0, %t
	%hi0 = mul i64 %hc, %g
	%hi.c = icmp slt i64 %hi0, %n
	%hi = select i1 %hi.c, i64 %hi0, i64 %n
	%lat = mul i64 %lj, 8
	%lnext = getelementptr [2048 x i64], [2048 x i64]* @graphc.pool.lanes, i64 0, i64 %lat
	store atomic i64 %lo, i64* %lnext monotonic, align 8
	%lat1 = add i64 %lat, 1
	%lend = getelementptr [2048 x i64], [2048 x i64]* @graphc.pool.lanes, i64 0, i64 %lat1
	store atomic i64 %hi, i64* %lend monotonic, align 8
	%lmore = icmp slt i64 %lj1, %t
	br i1 %lmore, label %lanes, label %go

go:
	%gen = load atomic i64, i64* @graphc.pool.gen monotonic, align 8
	%gen1 = add i64 %gen, 1
	store atomic i64 %gen1, i64* @graphc.pool.gen release, align 8
	%3 = call i32 @pthread_cond_broadcast(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.work, i64 0, i64 0))
	%4 = call i32 @pthread_mutex_unlock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	store i32 1, i32* @graphc.pool.inside, align 4
	call void @graphc.pool.run(void (i8*, i64, i64)* %fn, i8* %ctx, i64 %n, i64 %chunk, i64 0)
	store i32 0, i32* @graphc.pool.inside, align 4
	; a worker may still run the last chunk
	call void @graphc.pool.spin(i64* @graphc.pool.remaining, i64 0, i1 false)
	%5 = call i32 @graphc.pool.lock()
	br label %finish

finish:
	; every iteration ran: return, without waiting for workers still inside the job (they
	; find no chunk left and never call fn again; the next job waits for them in drain)
	%rem = load atomic i64, i64* @graphc.pool.remaining acquire, align 64
	%pending = icmp ne i64 %rem, 0
	br i1 %pending, label %finishwait, label %release

finishwait:
	%6 = call i32 @pthread_cond_wait(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.done, i64 0, i64 0), i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	br label %finish

release:
	%7 = call i32 @pthread_mutex_unlock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	store atomic i32 0, i32* @graphc.pool.busy release, align 4
	br label %out

serial:
	call void %fn(i8* %ctx, i64 0, i64 %n)
	br label %out

out:
	ret void
}

; graphc.pool.shutdown stops the workers (they finish the job in progress, if any) and joins
; them: the module's destructor.
define internal void @graphc.pool.shutdown() nounwind {
entry:
	%t = load i64, i64* @graphc.pool.threads, align 8
	%any = icmp sgt i64 %t, 1
	br i1 %any, label %stop, label %out

stop:
	%0 = call i32 @graphc.pool.lock()
	store i32 1, i32* @graphc.pool.stop, align 4
	%1 = call i32 @pthread_cond_broadcast(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.work, i64 0, i64 0))
	%2 = call i32 @pthread_mutex_unlock(i8* getelementptr ([64 x i8], [64 x i8]* @graphc.pool.mu, i64 0, i64 0))
	br label %loop

loop:
	%k = phi i64 [ 1, %stop ], [ %k1, %body ]
	%more = icmp slt i64 %k, %t
	br i1 %more, label %body, label %done

body:
	%p = getelementptr [256 x i64], [256 x i64]* @graphc.pool.tids, i64 0, i64 %k
	%tid = load i64, i64* %p, align 8
	%3 = call i32 @pthread_join(i64 %tid, i8** null)
	%k1 = add i64 %k, 1
	br label %loop

done:
	store i64 1, i64* @graphc.pool.threads, align 8
	br label %out

out:
	ret void
}
