target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main_graph(float* noalias nocapture readonly %in0, i64* noalias nocapture readonly %in1, i8* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="x86-64" {
entry:
	%0 = getelementptr i8, i8* %workspace, i64 0
	%1 = bitcast i8* %0 to float*
	%2 = call i32 @main_graph.k0.generic(float* %1, float* %in0, i64* %in1)
	%3 = icmp eq i32 %2, 0
	br i1 %3, label %op.ok.1, label %op.fail.2

op.ok.1:
	%4 = call i32 @main_graph.k1.generic(i8* %out0, float* %1)
	%5 = icmp eq i32 %4, 0
	br i1 %5, label %op.ok.3, label %op.fail.4

op.fail.2:
	ret i32 %2

op.ok.3:
	ret i32 0

op.fail.4:
	ret i32 %4
}

define internal i32 @main_graph.k0.generic(float* noalias nocapture %res, float* noalias nocapture readonly %op0, i64* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %11, %d1.exit.6 ]
	%1 = icmp sle i64 %0, 3
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %d1.header.4

d0.exit.3:
	ret i32 0

d1.header.4:
	%2 = phi i64 [ 0, %d0.body.2 ], [ %17, %dynread.ok.7 ]
	%3 = icmp sle i64 %2, 2
	br i1 %3, label %d1.body.5, label %d1.exit.6

d1.body.5:
	%4 = mul i64 %0, 3
	%5 = add i64 %4, %2
	%6 = getelementptr i64, i64* %op1, i64 %0
	%7 = load i64, i64* %6, align 8
	%8 = icmp ult i64 %7, 5
	%9 = icmp ult i64 %2, 3
	%10 = and i1 %8, %9
	br i1 %10, label %dynread.ok.7, label %fail.2

d1.exit.6:
	%11 = add i64 %0, 1
	br label %d0.header.1

dynread.ok.7:
	%12 = mul i64 %7, 3
	%13 = add i64 %12, %2
	%14 = getelementptr float, float* %op0, i64 %13
	%15 = load float, float* %14, align 4
	%16 = getelementptr float, float* %res, i64 %5
	store float %15, float* %16, align 4
	%17 = add i64 %2, 1
	br label %d1.header.4

fail.2:
	ret i32 2
}

define internal i32 @main_graph.k1.generic(i8* noalias nocapture %res, float* noalias nocapture readonly %op0) noinline nounwind "target-cpu"="x86-64" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %29, %vec.rem.exit.9 ]
	%1 = icmp sle i64 %0, 3
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %vec.header.4

d0.exit.3:
	ret i32 0

vec.header.4:
	%2 = phi i64 [ 0, %d0.body.2 ], [ %16, %vec.body.5 ]
	%3 = add i64 %2, 3
	%4 = icmp sle i64 %3, 2
	br i1 %4, label %vec.body.5, label %vec.exit.6

vec.body.5:
	%5 = mul i64 %0, 3
	%6 = add i64 %5, %2
	%7 = mul i64 %0, 3
	%8 = add i64 %7, %2
	%9 = getelementptr float, float* %op0, i64 %8
	%10 = bitcast float* %9 to <4 x float>*
	%11 = load <4 x float>, <4 x float>* %10, align 4
	%12 = fcmp ogt <4 x float> %11, <float 0.0, float 0.0, float 0.0, float 0.0>
	%13 = zext <4 x i1> %12 to <4 x i8>
	%14 = getelementptr i8, i8* %res, i64 %6
	%15 = bitcast i8* %14 to <4 x i8>*
	store <4 x i8> %13, <4 x i8>* %15, align 1
	%16 = add i64 %2, 4
	br label %vec.header.4

vec.exit.6:
	br label %vec.rem.header.7

vec.rem.header.7:
	%17 = phi i64 [ %2, %vec.exit.6 ], [ %28, %vec.rem.body.8 ]
	%18 = icmp sle i64 %17, 2
	br i1 %18, label %vec.rem.body.8, label %vec.rem.exit.9

vec.rem.body.8:
	%19 = mul i64 %0, 3
	%20 = add i64 %19, %17
	%21 = mul i64 %0, 3
	%22 = add i64 %21, %17
	%23 = getelementptr float, float* %op0, i64 %22
	%24 = load float, float* %23, align 4
	%25 = fcmp ogt float %24, 0.0
	%26 = zext i1 %25 to i8
	%27 = getelementptr i8, i8* %res, i64 %20
	store i8 %26, i8* %27, align 1
	%28 = add i64 %17, 1
	br label %vec.rem.header.7

vec.rem.exit.9:
	%29 = add i64 %0, 1
	br label %d0.header.1
}

define i64 @main_graph_workspace_size() nounwind "target-cpu"="x86-64" {
entry:
	ret i64 128
}
