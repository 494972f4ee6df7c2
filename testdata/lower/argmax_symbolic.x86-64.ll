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

define internal i32 @main_graph.k0.generic(i64* noalias nocapture %res, float* noalias nocapture readonly %op0, i8* noalias nocapture %scratch, i64 %N) nounwind "target-cpu"="x86-64" {
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
	%11 = icmp sge i64 %10, 0
	br i1 %11, label %guard.then.4, label %guard.end.5

guard.then.4:
	%12 = add i64 -1, %N
	br label %d0.header.6

guard.end.5:
	ret i32 0

d0.header.6:
	%13 = phi i64 [ 0, %guard.then.4 ], [ %30, %d1.exit.11 ]
	%14 = icmp sle i64 %13, %12
	br i1 %14, label %d0.body.7, label %d0.exit.8

d0.body.7:
	br label %d1.header.9

d0.exit.8:
	br label %guard.end.5

d1.header.9:
	%15 = phi i64 [ 0, %d0.body.7 ], [ %32, %arg.end.13 ]
	%16 = icmp sle i64 %15, 9
	br i1 %16, label %d1.body.10, label %d1.exit.11

d1.body.10:
	%17 = mul i64 %13, 10
	%18 = add i64 %17, %15
	%19 = getelementptr float, float* %op0, i64 %18
	%20 = load float, float* %19, align 4
	%21 = fpext float %20 to double
	%22 = getelementptr double, double* %1, i64 %13
	%23 = getelementptr i8, i8* %3, i64 %13
	%24 = load double, double* %22
	%25 = load i8, i8* %23
	%26 = icmp ne i8 %25, 0
	%27 = fcmp ogt double %21, %24
	%28 = xor i1 %26, true
	%29 = or i1 %28, %27
	br i1 %29, label %arg.then.12, label %arg.end.13

d1.exit.11:
	%30 = add i64 %13, 1
	br label %d0.header.6

arg.then.12:
	store double %21, double* %22
	store i8 1, i8* %23
	%31 = getelementptr i64, i64* %res, i64 %13
	store i64 %15, i64* %31
	br label %arg.end.13

arg.end.13:
	%32 = add i64 %15, 1
	br label %d1.header.9
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
