#!/bin/bash
# Reproduces the study (one thread). Generated set: /work/set23 (Corpus/generate.py --seed 23 --count 400).
set -e
cd /work/study
export OMP_NUM_THREADS=1
# 1. crop probabilities (stored pixels, EXIF tag not applied); fit then holdout, real set at 4 rotations
python extract.py --set gen  --split fit     --out probs_gen_main.pkl  --variants A,B,C,G256,G384,G448,G576,G768,T384,T448,T576 --tta A,G448,T448
python extract.py --set gen  --split fit     --out probs_gen_det2.pkl  --variants DA,DG256,DT384,DT448,DT576
python extract.py --set gen  --split fit     --out probs_gen_paper.pkl --variants PA,PG256,PT384,PT448,PT576
python extract.py --set gen  --split holdout --out probs_gen_hold2.pkl --variants A,T448,DA,DG256,DT384,DT448,DT576
python extract.py --set real --out probs_real2.pkl     --variants A,T448
python extract.py --set real --out probs_real_det2.pkl --variants DA,DG256,DT384,DT448,DT576
# 2. the comparison on fit (every variant / crop subset / combination), then the chosen ones
python score.py probs_gen_main.pkl probs_gen_det2.pkl probs_gen_paper.pkl --split fit > table_fit_all.txt
python score.py probs_gen_main.pkl probs_gen_det2.pkl --split fit     --only A,A+T448.5l,DA+DT448.5l --calib --breakdown > report_fit.txt
python score.py probs_gen_hold2.pkl                   --split holdout --only A,A+T448.5l,DA+DT448.5l --calib --breakdown > report_holdout.txt
python score.py probs_real2.pkl probs_real_det2.pkl   --split real    --only A,A+T448.5l,DA+DT448.5l --calib --breakdown > report_real.txt
python paper_iou.py fit
python timing.py 40 A,B,C,G256.5,G448.5,T448.5,DA,DT448.5,DA+DT448.5,A+T448.5,T448.5+rot > timing.txt
# 3. the recipe alone (what docorient ports): python3 recipe.py FILE...
