B
sel_scoresJ<MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>MÁ>