target datalayout = "e-m:e-p:32:32:32-a:0-n16:32-i64:64:64-i32:32:32-i16:16:16-i1:8:8-f32:32:32-f64:64:64-v32:32:32-v64:64:64-v512:512:512-v1024:1024:1024-v2048:2048:2048"
target triple = "hexagon-unknown-linux-musl"

define i32 @main_graph(float* noalias nocapture readonly %in0, float* noalias nocapture readonly %in1, float* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
entry:
	%0 = getelementptr i8, i8* %workspace, i64 0
	%1 = bitcast i8* %0 to float*
	%2 = call i32 @main_graph.k0.matmul(float* %1, float* %in0, float* %in1)
	%3 = icmp eq i32 %2, 0
	br i1 %3, label %op.ok.1, label %op.fail.2

op.ok.1:
	%4 = call i32 @main_graph.k1.trilu(float* %out0, float* %1)
	%5 = icmp eq i32 %4, 0
	br i1 %5, label %op.ok.3, label %op.fail.4

op.fail.2:
	ret i32 %2

op.ok.3:
	ret i32 0

op.fail.4:
	ret i32 %4
}

define internal i32 @main_graph.k0.matmul(float* noalias nocapture %res, float* noalias nocapture readonly %op0, float* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
entry:
	br label %init.header.1

init.header.1:
	%0 = phi i64 [ 0, %entry ], [ %3, %init.body.2 ]
	%1 = icmp sle i64 %0, 63
	br i1 %1, label %init.body.2, label %init.exit.3

init.body.2:
	%2 = getelementptr float, float* %res, i64 %0
	store float 0.0, float* %2, align 4
	%3 = add i64 %0, 1
	br label %init.header.1

init.exit.3:
	br label %d0.header.4

d0.header.4:
	%4 = phi i64 [ 0, %init.exit.3 ], [ %8, %d1.exit.9 ]
	%5 = icmp sle i64 %4, 7
	br i1 %5, label %d0.body.5, label %d0.exit.6

d0.body.5:
	br label %d1.header.7

d0.exit.6:
	ret i32 0

d1.header.7:
	%6 = phi i64 [ 0, %d0.body.5 ], [ %51, %vec.rem.exit.15 ]
	%7 = icmp sle i64 %6, 7
	br i1 %7, label %d1.body.8, label %d1.exit.9

d1.body.8:
	br label %vec.header.10

d1.exit.9:
	%8 = add i64 %4, 1
	br label %d0.header.4

vec.header.10:
	%9 = phi i64 [ %4, %d1.body.8 ], [ %32, %vec.body.11 ]
	%10 = add i64 %9, 31
	%11 = icmp sle i64 %10, 7
	br i1 %11, label %vec.body.11, label %vec.exit.12

vec.body.11:
	%12 = mul i64 %4, 8
	%13 = add i64 %12, %9
	%14 = mul i64 %4, 8
	%15 = add i64 %14, %6
	%16 = getelementptr float, float* %op0, i64 %15
	%17 = load float, float* %16, align 4
	%18 = insertelement <32 x float> undef, float %17, i32 0
	%19 = shufflevector <32 x float> %18, <32 x float> undef, <32 x i32> <i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0, i32 0>
	%20 = mul i64 %6, 8
	%21 = add i64 %20, %9
	%22 = getelementptr float, float* %op1, i64 %21
	%23 = bitcast float* %22 to <32 x float>*
	%24 = load <32 x float>, <32 x float>* %23, align 4
	%25 = fmul <32 x float> %19, %24
	%26 = getelementptr float, float* %res, i64 %13
	%27 = bitcast float* %26 to <32 x float>*
	%28 = load <32 x float>, <32 x float>* %27, align 4
	%29 = fadd <32 x float> %28, %25
	%30 = getelementptr float, float* %res, i64 %13
	%31 = bitcast float* %30 to <32 x float>*
	store <32 x float> %29, <32 x float>* %31, align 4
	%32 = add i64 %9, 32
	br label %vec.header.10

vec.exit.12:
	br label %vec.rem.header.13

vec.rem.header.13:
	%33 = phi i64 [ %9, %vec.exit.12 ], [ %50, %vec.rem.body.14 ]
	%34 = icmp sle i64 %33, 7
	br i1 %34, label %vec.rem.body.14, label %vec.rem.exit.15

vec.rem.body.14:
	%35 = mul i64 %4, 8
	%36 = add i64 %35, %33
	%37 = mul i64 %4, 8
	%38 = add i64 %37, %6
	%39 = getelementptr float, float* %op0, i64 %38
	%40 = load float, float* %39, align 4
	%41 = mul i64 %6, 8
	%42 = add i64 %41, %33
	%43 = getelementptr float, float* %op1, i64 %42
	%44 = load float, float* %43, align 4
	%45 = fmul float %40, %44
	%46 = getelementptr float, float* %res, i64 %36
	%47 = load float, float* %46, align 4
	%48 = fadd float %47, %45
	%49 = getelementptr float, float* %res, i64 %36
	store float %48, float* %49, align 4
	%50 = add i64 %33, 1
	br label %vec.rem.header.13

vec.rem.exit.15:
	%51 = add i64 %6, 1
	br label %d1.header.7
}

define internal i32 @main_graph.k1.trilu(float* noalias nocapture %res, float* noalias nocapture readonly %op0) noinline nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
entry:
	br label %d0.header.1

d0.header.1:
	%0 = phi i64 [ 0, %entry ], [ %25, %vec.rem.exit.9 ]
	%1 = icmp sle i64 %0, 7
	br i1 %1, label %d0.body.2, label %d0.exit.3

d0.body.2:
	br label %vec.header.4

d0.exit.3:
	br label %d0.header.10

vec.header.4:
	%2 = phi i64 [ %0, %d0.body.2 ], [ %14, %vec.body.5 ]
	%3 = add i64 %2, 31
	%4 = icmp sle i64 %3, 7
	br i1 %4, label %vec.body.5, label %vec.exit.6

vec.body.5:
	%5 = mul i64 %0, 8
	%6 = add i64 %5, %2
	%7 = mul i64 %0, 8
	%8 = add i64 %7, %2
	%9 = getelementptr float, float* %op0, i64 %8
	%10 = bitcast float* %9 to <32 x float>*
	%11 = load <32 x float>, <32 x float>* %10, align 4
	%12 = getelementptr float, float* %res, i64 %6
	%13 = bitcast float* %12 to <32 x float>*
	store <32 x float> %11, <32 x float>* %13, align 4
	%14 = add i64 %2, 32
	br label %vec.header.4

vec.exit.6:
	br label %vec.rem.header.7

vec.rem.header.7:
	%15 = phi i64 [ %2, %vec.exit.6 ], [ %24, %vec.rem.body.8 ]
	%16 = icmp sle i64 %15, 7
	br i1 %16, label %vec.rem.body.8, label %vec.rem.exit.9

vec.rem.body.8:
	%17 = mul i64 %0, 8
	%18 = add i64 %17, %15
	%19 = mul i64 %0, 8
	%20 = add i64 %19, %15
	%21 = getelementptr float, float* %op0, i64 %20
	%22 = load float, float* %21, align 4
	%23 = getelementptr float, float* %res, i64 %18
	store float %22, float* %23, align 4
	%24 = add i64 %15, 1
	br label %vec.rem.header.7

vec.rem.exit.9:
	%25 = add i64 %0, 1
	br label %d0.header.1

d0.header.10:
	%26 = phi i64 [ 1, %d0.exit.3 ], [ %43, %vec.rem.exit.18 ]
	%27 = icmp sle i64 %26, 7
	br i1 %27, label %d0.body.11, label %d0.exit.12

d0.body.11:
	%28 = add i64 -1, %26
	br label %vec.header.13

d0.exit.12:
	ret i32 0

vec.header.13:
	%29 = phi i64 [ 0, %d0.body.11 ], [ %36, %vec.body.14 ]
	%30 = add i64 %29, 31
	%31 = icmp sle i64 %30, %28
	br i1 %31, label %vec.body.14, label %vec.exit.15

vec.body.14:
	%32 = mul i64 %26, 8
	%33 = add i64 %32, %29
	%34 = getelementptr float, float* %res, i64 %33
	%35 = bitcast float* %34 to <32 x float>*
	store <32 x float> <float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0, float 0.0>, <32 x float>* %35, align 4
	%36 = add i64 %29, 32
	br label %vec.header.13

vec.exit.15:
	br label %vec.rem.header.16

vec.rem.header.16:
	%37 = phi i64 [ %29, %vec.exit.15 ], [ %42, %vec.rem.body.17 ]
	%38 = icmp sle i64 %37, %28
	br i1 %38, label %vec.rem.body.17, label %vec.rem.exit.18

vec.rem.body.17:
	%39 = mul i64 %26, 8
	%40 = add i64 %39, %37
	%41 = getelementptr float, float* %res, i64 %40
	store float 0.0, float* %41, align 4
	%42 = add i64 %37, 1
	br label %vec.rem.header.16

vec.rem.exit.18:
	%43 = add i64 %26, 1
	br label %d0.header.10
}

define i64 @main_graph_workspace_size() nounwind "target-cpu"="hexagonv68" "target-features"="+hvxv68,+hvx-length128b" "no-builtins" {
entry:
	ret i64 256
}
