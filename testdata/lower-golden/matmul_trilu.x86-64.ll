target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define i32 @main_graph(float* noalias nocapture readonly %in0, float* noalias nocapture readonly %in1, float* noalias nocapture %out0, i8* noalias nocapture %workspace) nounwind "target-cpu"="x86-64" {
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

define internal i32 @main_graph.k0.matmul(float* noalias nocapture %res, float* noalias nocapture readonly %op0, float* noalias nocapture readonly %op1) noinline nounwind "target-cpu"="x86-64" {
entry:
	%0 = alloca [40 x float], align 64
	%1 = alloca <4 x float>, align 64
	%2 = alloca <4 x float>, align 64
	%3 = alloca <4 x float>, align 64
	%4 = alloca <4 x float>, align 64
	%5 = alloca <4 x float>, align 64
	%6 = alloca <4 x float>, align 64
	%7 = alloca [40 x float], align 64
	%8 = alloca <4 x float>, align 64
	%9 = alloca <4 x float>, align 64
	%10 = alloca <4 x float>, align 64
	%11 = alloca <4 x float>, align 64
	%12 = alloca <4 x float>, align 64
	%13 = alloca <4 x float>, align 64
	%14 = alloca <4 x float>, align 64
	%15 = alloca <4 x float>, align 64
	%16 = alloca <4 x float>, align 64
	%17 = alloca <4 x float>, align 64
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %17
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %16
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %15
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %14
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %13
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %12
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %11
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %10
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %9
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %8
	br label %d0.header.1

d0.header.1:
	%18 = phi i64 [ 0, %entry ], [ %133, %d0.body.2 ]
	%19 = icmp sle i64 %18, 7
	br i1 %19, label %d0.body.2, label %d0.exit.3

d0.body.2:
	%20 = load <4 x float>, <4 x float>* %17
	%21 = getelementptr float, float* %op0, i64 %18
	%22 = load float, float* %21, align 4
	%23 = insertelement <4 x float> undef, float %22, i32 0
	%24 = shufflevector <4 x float> %23, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%25 = mul i64 %18, 8
	%26 = getelementptr float, float* %op1, i64 %25
	%27 = bitcast float* %26 to <4 x float>*
	%28 = load <4 x float>, <4 x float>* %27, align 4
	%29 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %24, <4 x float> %28, <4 x float> %20)
	store <4 x float> %29, <4 x float>* %17
	%30 = load <4 x float>, <4 x float>* %16
	%31 = getelementptr float, float* %op0, i64 %18
	%32 = load float, float* %31, align 4
	%33 = insertelement <4 x float> undef, float %32, i32 0
	%34 = shufflevector <4 x float> %33, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%35 = mul i64 %18, 8
	%36 = add i64 %35, 4
	%37 = getelementptr float, float* %op1, i64 %36
	%38 = bitcast float* %37 to <4 x float>*
	%39 = load <4 x float>, <4 x float>* %38, align 4
	%40 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %34, <4 x float> %39, <4 x float> %30)
	store <4 x float> %40, <4 x float>* %16
	%41 = load <4 x float>, <4 x float>* %15
	%42 = add i64 8, %18
	%43 = getelementptr float, float* %op0, i64 %42
	%44 = load float, float* %43, align 4
	%45 = insertelement <4 x float> undef, float %44, i32 0
	%46 = shufflevector <4 x float> %45, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%47 = mul i64 %18, 8
	%48 = getelementptr float, float* %op1, i64 %47
	%49 = bitcast float* %48 to <4 x float>*
	%50 = load <4 x float>, <4 x float>* %49, align 4
	%51 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %46, <4 x float> %50, <4 x float> %41)
	store <4 x float> %51, <4 x float>* %15
	%52 = load <4 x float>, <4 x float>* %14
	%53 = add i64 8, %18
	%54 = getelementptr float, float* %op0, i64 %53
	%55 = load float, float* %54, align 4
	%56 = insertelement <4 x float> undef, float %55, i32 0
	%57 = shufflevector <4 x float> %56, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%58 = mul i64 %18, 8
	%59 = add i64 %58, 4
	%60 = getelementptr float, float* %op1, i64 %59
	%61 = bitcast float* %60 to <4 x float>*
	%62 = load <4 x float>, <4 x float>* %61, align 4
	%63 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %57, <4 x float> %62, <4 x float> %52)
	store <4 x float> %63, <4 x float>* %14
	%64 = load <4 x float>, <4 x float>* %13
	%65 = add i64 16, %18
	%66 = getelementptr float, float* %op0, i64 %65
	%67 = load float, float* %66, align 4
	%68 = insertelement <4 x float> undef, float %67, i32 0
	%69 = shufflevector <4 x float> %68, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%70 = mul i64 %18, 8
	%71 = getelementptr float, float* %op1, i64 %70
	%72 = bitcast float* %71 to <4 x float>*
	%73 = load <4 x float>, <4 x float>* %72, align 4
	%74 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %69, <4 x float> %73, <4 x float> %64)
	store <4 x float> %74, <4 x float>* %13
	%75 = load <4 x float>, <4 x float>* %12
	%76 = add i64 16, %18
	%77 = getelementptr float, float* %op0, i64 %76
	%78 = load float, float* %77, align 4
	%79 = insertelement <4 x float> undef, float %78, i32 0
	%80 = shufflevector <4 x float> %79, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%81 = mul i64 %18, 8
	%82 = add i64 %81, 4
	%83 = getelementptr float, float* %op1, i64 %82
	%84 = bitcast float* %83 to <4 x float>*
	%85 = load <4 x float>, <4 x float>* %84, align 4
	%86 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %80, <4 x float> %85, <4 x float> %75)
	store <4 x float> %86, <4 x float>* %12
	%87 = load <4 x float>, <4 x float>* %11
	%88 = add i64 24, %18
	%89 = getelementptr float, float* %op0, i64 %88
	%90 = load float, float* %89, align 4
	%91 = insertelement <4 x float> undef, float %90, i32 0
	%92 = shufflevector <4 x float> %91, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%93 = mul i64 %18, 8
	%94 = getelementptr float, float* %op1, i64 %93
	%95 = bitcast float* %94 to <4 x float>*
	%96 = load <4 x float>, <4 x float>* %95, align 4
	%97 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %92, <4 x float> %96, <4 x float> %87)
	store <4 x float> %97, <4 x float>* %11
	%98 = load <4 x float>, <4 x float>* %10
	%99 = add i64 24, %18
	%100 = getelementptr float, float* %op0, i64 %99
	%101 = load float, float* %100, align 4
	%102 = insertelement <4 x float> undef, float %101, i32 0
	%103 = shufflevector <4 x float> %102, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%104 = mul i64 %18, 8
	%105 = add i64 %104, 4
	%106 = getelementptr float, float* %op1, i64 %105
	%107 = bitcast float* %106 to <4 x float>*
	%108 = load <4 x float>, <4 x float>* %107, align 4
	%109 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %103, <4 x float> %108, <4 x float> %98)
	store <4 x float> %109, <4 x float>* %10
	%110 = load <4 x float>, <4 x float>* %9
	%111 = add i64 32, %18
	%112 = getelementptr float, float* %op0, i64 %111
	%113 = load float, float* %112, align 4
	%114 = insertelement <4 x float> undef, float %113, i32 0
	%115 = shufflevector <4 x float> %114, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%116 = mul i64 %18, 8
	%117 = getelementptr float, float* %op1, i64 %116
	%118 = bitcast float* %117 to <4 x float>*
	%119 = load <4 x float>, <4 x float>* %118, align 4
	%120 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %115, <4 x float> %119, <4 x float> %110)
	store <4 x float> %120, <4 x float>* %9
	%121 = load <4 x float>, <4 x float>* %8
	%122 = add i64 32, %18
	%123 = getelementptr float, float* %op0, i64 %122
	%124 = load float, float* %123, align 4
	%125 = insertelement <4 x float> undef, float %124, i32 0
	%126 = shufflevector <4 x float> %125, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%127 = mul i64 %18, 8
	%128 = add i64 %127, 4
	%129 = getelementptr float, float* %op1, i64 %128
	%130 = bitcast float* %129 to <4 x float>*
	%131 = load <4 x float>, <4 x float>* %130, align 4
	%132 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %126, <4 x float> %131, <4 x float> %121)
	store <4 x float> %132, <4 x float>* %8
	%133 = add i64 %18, 1
	br label %d0.header.1

d0.exit.3:
	%134 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 0
	%135 = load <4 x float>, <4 x float>* %17
	%136 = bitcast float* %134 to <4 x float>*
	store <4 x float> %135, <4 x float>* %136
	%137 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 4
	%138 = load <4 x float>, <4 x float>* %16
	%139 = bitcast float* %137 to <4 x float>*
	store <4 x float> %138, <4 x float>* %139
	%140 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 8
	%141 = load <4 x float>, <4 x float>* %15
	%142 = bitcast float* %140 to <4 x float>*
	store <4 x float> %141, <4 x float>* %142
	%143 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 12
	%144 = load <4 x float>, <4 x float>* %14
	%145 = bitcast float* %143 to <4 x float>*
	store <4 x float> %144, <4 x float>* %145
	%146 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 16
	%147 = load <4 x float>, <4 x float>* %13
	%148 = bitcast float* %146 to <4 x float>*
	store <4 x float> %147, <4 x float>* %148
	%149 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 20
	%150 = load <4 x float>, <4 x float>* %12
	%151 = bitcast float* %149 to <4 x float>*
	store <4 x float> %150, <4 x float>* %151
	%152 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 24
	%153 = load <4 x float>, <4 x float>* %11
	%154 = bitcast float* %152 to <4 x float>*
	store <4 x float> %153, <4 x float>* %154
	%155 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 28
	%156 = load <4 x float>, <4 x float>* %10
	%157 = bitcast float* %155 to <4 x float>*
	store <4 x float> %156, <4 x float>* %157
	%158 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 32
	%159 = load <4 x float>, <4 x float>* %9
	%160 = bitcast float* %158 to <4 x float>*
	store <4 x float> %159, <4 x float>* %160
	%161 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 36
	%162 = load <4 x float>, <4 x float>* %8
	%163 = bitcast float* %161 to <4 x float>*
	store <4 x float> %162, <4 x float>* %163
	br label %d0.header.4

d0.header.4:
	%164 = phi i64 [ 0, %d0.exit.3 ], [ %178, %d1.exit.9 ]
	%165 = icmp sle i64 %164, 4
	br i1 %165, label %d0.body.5, label %d0.exit.6

d0.body.5:
	%166 = icmp sgt i64 %164, 0
	%167 = select i1 %166, i64 %164, i64 0
	br label %d1.header.7

d0.exit.6:
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %6
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %5
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %4
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %3
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %2
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %1
	br label %d0.header.10

d1.header.7:
	%168 = phi i64 [ %167, %d0.body.5 ], [ %177, %d1.body.8 ]
	%169 = icmp sle i64 %168, 7
	br i1 %169, label %d1.body.8, label %d1.exit.9

d1.body.8:
	%170 = mul i64 %164, 8
	%171 = add i64 %170, %168
	%172 = getelementptr [40 x float], [40 x float]* %7, i64 0, i64 %171
	%173 = load float, float* %172
	%174 = mul i64 %164, 8
	%175 = add i64 %174, %168
	%176 = getelementptr float, float* %res, i64 %175
	store float %173, float* %176, align 4
	%177 = add i64 %168, 1
	br label %d1.header.7

d1.exit.9:
	%178 = add i64 %164, 1
	br label %d0.header.4

d0.header.10:
	%179 = phi i64 [ 0, %d0.exit.6 ], [ %250, %d0.body.11 ]
	%180 = icmp sle i64 %179, 7
	br i1 %180, label %d0.body.11, label %d0.exit.12

d0.body.11:
	%181 = load <4 x float>, <4 x float>* %6
	%182 = add i64 40, %179
	%183 = getelementptr float, float* %op0, i64 %182
	%184 = load float, float* %183, align 4
	%185 = insertelement <4 x float> undef, float %184, i32 0
	%186 = shufflevector <4 x float> %185, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%187 = mul i64 %179, 8
	%188 = getelementptr float, float* %op1, i64 %187
	%189 = bitcast float* %188 to <4 x float>*
	%190 = load <4 x float>, <4 x float>* %189, align 4
	%191 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %186, <4 x float> %190, <4 x float> %181)
	store <4 x float> %191, <4 x float>* %6
	%192 = load <4 x float>, <4 x float>* %5
	%193 = add i64 40, %179
	%194 = getelementptr float, float* %op0, i64 %193
	%195 = load float, float* %194, align 4
	%196 = insertelement <4 x float> undef, float %195, i32 0
	%197 = shufflevector <4 x float> %196, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%198 = mul i64 %179, 8
	%199 = add i64 %198, 4
	%200 = getelementptr float, float* %op1, i64 %199
	%201 = bitcast float* %200 to <4 x float>*
	%202 = load <4 x float>, <4 x float>* %201, align 4
	%203 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %197, <4 x float> %202, <4 x float> %192)
	store <4 x float> %203, <4 x float>* %5
	%204 = load <4 x float>, <4 x float>* %4
	%205 = add i64 48, %179
	%206 = getelementptr float, float* %op0, i64 %205
	%207 = load float, float* %206, align 4
	%208 = insertelement <4 x float> undef, float %207, i32 0
	%209 = shufflevector <4 x float> %208, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%210 = mul i64 %179, 8
	%211 = getelementptr float, float* %op1, i64 %210
	%212 = bitcast float* %211 to <4 x float>*
	%213 = load <4 x float>, <4 x float>* %212, align 4
	%214 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %209, <4 x float> %213, <4 x float> %204)
	store <4 x float> %214, <4 x float>* %4
	%215 = load <4 x float>, <4 x float>* %3
	%216 = add i64 48, %179
	%217 = getelementptr float, float* %op0, i64 %216
	%218 = load float, float* %217, align 4
	%219 = insertelement <4 x float> undef, float %218, i32 0
	%220 = shufflevector <4 x float> %219, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%221 = mul i64 %179, 8
	%222 = add i64 %221, 4
	%223 = getelementptr float, float* %op1, i64 %222
	%224 = bitcast float* %223 to <4 x float>*
	%225 = load <4 x float>, <4 x float>* %224, align 4
	%226 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %220, <4 x float> %225, <4 x float> %215)
	store <4 x float> %226, <4 x float>* %3
	%227 = load <4 x float>, <4 x float>* %2
	%228 = add i64 56, %179
	%229 = getelementptr float, float* %op0, i64 %228
	%230 = load float, float* %229, align 4
	%231 = insertelement <4 x float> undef, float %230, i32 0
	%232 = shufflevector <4 x float> %231, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%233 = mul i64 %179, 8
	%234 = getelementptr float, float* %op1, i64 %233
	%235 = bitcast float* %234 to <4 x float>*
	%236 = load <4 x float>, <4 x float>* %235, align 4
	%237 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %232, <4 x float> %236, <4 x float> %227)
	store <4 x float> %237, <4 x float>* %2
	%238 = load <4 x float>, <4 x float>* %1
	%239 = add i64 56, %179
	%240 = getelementptr float, float* %op0, i64 %239
	%241 = load float, float* %240, align 4
	%242 = insertelement <4 x float> undef, float %241, i32 0
	%243 = shufflevector <4 x float> %242, <4 x float> undef, <4 x i32> <i32 0, i32 0, i32 0, i32 0>
	%244 = mul i64 %179, 8
	%245 = add i64 %244, 4
	%246 = getelementptr float, float* %op1, i64 %245
	%247 = bitcast float* %246 to <4 x float>*
	%248 = load <4 x float>, <4 x float>* %247, align 4
	%249 = call <4 x float> @llvm.fmuladd.v4f32(<4 x float> %243, <4 x float> %248, <4 x float> %238)
	store <4 x float> %249, <4 x float>* %1
	%250 = add i64 %179, 1
	br label %d0.header.10

d0.exit.12:
	%251 = getelementptr [40 x float], [40 x float]* %0, i64 0, i64 0
	%252 = load <4 x float>, <4 x float>* %6
	%253 = bitcast float* %251 to <4 x float>*
	store <4 x float> %252, <4 x float>* %253
	%254 = getelementptr [40 x float], [40 x float]* %0, i64 0, i64 4
	%255 = load <4 x float>, <4 x float>* %5
	%256 = bitcast float* %254 to <4 x float>*
	store <4 x float> %255, <4 x float>* %256
	%257 = getelementptr [40 x float], [40 x float]* %0, i64 0, i64 8
	%258 = load <4 x float>, <4 x float>* %4
	%259 = bitcast float* %257 to <4 x float>*
	store <4 x float> %258, <4 x float>* %259
	%260 = getelementptr [40 x float], [40 x float]* %0, i64 0, i64 12
	%261 = load <4 x float>, <4 x float>* %3
	%262 = bitcast float* %260 to <4 x float>*
	store <4 x float> %261, <4 x float>* %262
	%263 = getelementptr [40 x float], [40 x float]* %0, i64 0, i64 16
	%264 = load <4 x float>, <4 x float>* %2
	%265 = bitcast float* %263 to <4 x float>*
	store <4 x float> %264, <4 x float>* %265
	%266 = getelementptr [40 x float], [40 x float]* %0, i64 0, i64 20
	%267 = load <4 x float>, <4 x float>* %1
	%268 = bitcast float* %266 to <4 x float>*
	store <4 x float> %267, <4 x float>* %268
	br label %d0.header.13

d0.header.13:
	%269 = phi i64 [ 0, %d0.exit.12 ], [ %285, %d1.exit.18 ]
	%270 = icmp sle i64 %269, 2
	br i1 %270, label %d0.body.14, label %d0.exit.15

d0.body.14:
	%271 = add i64 %269, 5
	%272 = icmp sgt i64 %271, 0
	%273 = select i1 %272, i64 %271, i64 0
	br label %d1.header.16

d0.exit.15:
	ret i32 0

d1.header.16:
	%274 = phi i64 [ %273, %d0.body.14 ], [ %284, %d1.body.17 ]
	%275 = icmp sle i64 %274, 7
	br i1 %275, label %d1.body.17, label %d1.exit.18

d1.body.17:
	%276 = mul i64 %269, 8
	%277 = add i64 %276, %274
	%278 = getelementptr [40 x float], [40 x float]* %0, i64 0, i64 %277
	%279 = load float, float* %278
	%280 = add i64 5, %269
	%281 = mul i64 %280, 8
	%282 = add i64 %281, %274
	%283 = getelementptr float, float* %res, i64 %282
	store float %279, float* %283, align 4
	%284 = add i64 %274, 1
	br label %d1.header.16

d1.exit.18:
	%285 = add i64 %269, 1
	br label %d0.header.13
}

declare <4 x float> @llvm.fmuladd.v4f32(<4 x float> %0, <4 x float> %1, <4 x float> %2)

define internal i32 @main_graph.k1.trilu(float* noalias nocapture %res, float* noalias nocapture readonly %op0) noinline nounwind "target-cpu"="x86-64" {
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
	%3 = add i64 %2, 3
	%4 = icmp sle i64 %3, 7
	br i1 %4, label %vec.body.5, label %vec.exit.6

vec.body.5:
	%5 = mul i64 %0, 8
	%6 = add i64 %5, %2
	%7 = mul i64 %0, 8
	%8 = add i64 %7, %2
	%9 = getelementptr float, float* %op0, i64 %8
	%10 = bitcast float* %9 to <4 x float>*
	%11 = load <4 x float>, <4 x float>* %10, align 4
	%12 = getelementptr float, float* %res, i64 %6
	%13 = bitcast float* %12 to <4 x float>*
	store <4 x float> %11, <4 x float>* %13, align 4
	%14 = add i64 %2, 4
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
	%30 = add i64 %29, 3
	%31 = icmp sle i64 %30, %28
	br i1 %31, label %vec.body.14, label %vec.exit.15

vec.body.14:
	%32 = mul i64 %26, 8
	%33 = add i64 %32, %29
	%34 = getelementptr float, float* %res, i64 %33
	%35 = bitcast float* %34 to <4 x float>*
	store <4 x float> <float 0.0, float 0.0, float 0.0, float 0.0>, <4 x float>* %35, align 4
	%36 = add i64 %29, 4
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

define i64 @main_graph_workspace_size() nounwind "target-cpu"="x86-64" {
entry:
	ret i64 256
}
