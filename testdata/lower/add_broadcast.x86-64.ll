target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main_graph(float* noalias nocapture readonly %in0, float* noalias nocapture readonly %in1, float* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="x86-64" {
entry:
	%0 = call i32 @main_graph.k0.add(float* %out0, float* %in0, float* %in1)
	%1 = icmp eq i32 %0, 0
	br i1 %1, label %op.ok.1, label %op.fail.2

op.ok.1:
	ret i32 0

op.fail.2:
	ret i32 %0
}

define internal i32 @main_graph.k0.add(float* noalias nocapture %res, float* noalias nocapture readonly %op0, float* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %19, %vec.exit.6 ]
	%1 = icmp sle i64 %0, 3
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %vec.header.4

d0.exit.3:
	ret i32 0

vec.header.4:
	%2 = phi i64 [ 0, %d0.body.2 ], [ %18, %vec.body.5 ]
	%3 = add i64 %2, 3
	%4 = icmp sle i64 %3, 39
	br i1 %4, label %vec.body.5, label %vec.exit.6

vec.body.5:
	%5 = mul i64 %0, 40
	%6 = add i64 %5, %2
	%7 = mul i64 %0, 40
	%8 = add i64 %7, %2
	%9 = getelementptr float, float* %op0, i64 %8
	%10 = bitcast float* %9 to <4 x float>*
	%11 = load <4 x float>, <4 x float>* %10, align 4
	%12 = getelementptr float, float* %op1, i64 %2
	%13 = bitcast float* %12 to <4 x float>*
	%14 = load <4 x float>, <4 x float>* %13, align 4
	%15 = fadd <4 x float> %11, %14
	%16 = getelementptr float, float* %res, i64 %6
	%17 = bitcast float* %16 to <4 x float>*
	store <4 x float> %15, <4 x float>* %17, align 4
	%18 = add i64 %2, 4
	br label %vec.header.4

vec.exit.6:
	%19 = add i64 %0, 1
	br label %d0.header.1
}

define i64 @main_graph_workspace_size() nounwind "target-cpu"="x86-64" {
entry:
	ret i64 0
}
