target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main_graph(float* noalias nocapture readonly %in0, i64* noalias nocapture %out0, i64 %N, i8* noalias nocapture %workspace) nounwind "target-cpu"="x86-64" {
entry:
	%0 = icmp sge i64 %N, 0
	br i1 %0, label %dims.ok.1, label %fail.1

dims.ok.1:
	%1 = icmp sge i64 %N, 0
	br i1 %1, label %dims.ok.2, label %fail.1

fail.1:
	ret i32 1

dims.ok.2:
	%2 = mul i64 %N, 9
	%3 = icmp sgt i64 0, %2
	%4 = select i1 %3, i64 0, i64 %2
	%5 = add i64 %4, 127
	%6 = and i64 %5, -128
	%7 = getelementptr i8, i8* %workspace, i64 0
	%8 = call i32 @main_graph.k0.generic(i64* %out0, float* %in0, i8* %7, i64 %N)
	%9 = icmp eq i32 %8, 0
	br i1 %9, label %op.ok.3, label %op.fail.4

op.ok.3:
	ret i32 0

op.fail.4:
	ret i32 %8
}

define internal i32 @main_graph.k0.generic(i64* noalias nocapture %res, float* noalias nocapture readonly %op0, i8* noalias nocapture %scratch, i64 %N) noinline nounwind "target-cpu"="x86-64" {
entry:
	%0 = mul i64 10, %N
	%1 = bitcast i8* %scratch to double*
	%2 = mul i64 %N, 8
	%3 = getelementptr i8, i8* %scratch, i64 %2
	%4 = sub i64 %N, 1
	br label %init.header.1

init.header.1:
	%5 = phi i64 [ 0, %entry ], [ %9, %init.body.2 ]
	%6 = icmp sle i64 %5, %4
	br i1 %6, label %init.body.2, label %init.exit.3

init.body.2:
	%7 = getelementptr i64, i64* %res, i64 %5
	store i64 0, i64* %7, align 8
	%8 = getelementptr i8, i8* %3, i64 %5
	store i8 0, i8* %8
	%9 = add i64 %5, 1
	br label %init.header.1

init.exit.3:
	%10 = add i64 -1, %N
	br label %d0.header.4

d0.header.4:
	%11 = phi i64 [ 0, %init.exit.3 ], [ %28, %d1.exit.9 ]
	%12 = icmp sle i64 %11, %10
	br i1 %12, label %d0.body.5, label %d0.exit.6

d0.body.5:
	br label %d1.header.7

d0.exit.6:
	ret i32 0

d1.header.7:
	%13 = phi i64 [ 0, %d0.body.5 ], [ %30, %arg.end.11 ]
	%14 = icmp sle i64 %13, 9
	br i1 %14, label %d1.body.8, label %d1.exit.9

d1.body.8:
	%15 = mul i64 %11, 10
	%16 = add i64 %15, %13
	%17 = getelementptr float, float* %op0, i64 %16
	%18 = load float, float* %17, align 4
	%19 = fpext float %18 to double
	%20 = getelementptr double, double* %1, i64 %11
	%21 = getelementptr i8, i8* %3, i64 %11
	%22 = load double, double* %20
	%23 = load i8, i8* %21
	%24 = icmp ne i8 %23, 0
	%25 = fcmp ogt double %19, %22
	%26 = xor i1 %24, true
	%27 = or i1 %26, %25
	br i1 %27, label %arg.then.10, label %arg.end.11

d1.exit.9:
	%28 = add i64 %11, 1
	br label %d0.header.4

arg.then.10:
	store double %19, double* %20
	store i8 1, i8* %21
	%29 = getelementptr i64, i64* %res, i64 %11
	store i64 %13, i64* %29
	br label %arg.end.11

arg.end.11:
	%30 = add i64 %13, 1
	br label %d1.header.7
}

define i64 @main_graph_workspace_size(i64 %N) nounwind "target-cpu"="x86-64" {
entry:
	%0 = icmp sge i64 %N, 0
	br i1 %0, label %dims.ok.1, label %bad_dims

dims.ok.1:
	%1 = icmp sge i64 %N, 0
	br i1 %1, label %dims.ok.2, label %bad_dims

bad_dims:
	ret i64 -1

dims.ok.2:
	%2 = mul i64 %N, 9
	%3 = icmp sgt i64 0, %2
	%4 = select i1 %3, i64 0, i64 %2
	%5 = add i64 %4, 127
	%6 = and i64 %5, -128
	ret i64 %6
}
