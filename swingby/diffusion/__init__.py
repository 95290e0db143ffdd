"""Diffusion validation of paper Sec. 5 / App. G on a CPU: the coloured-circles data
(:mod:`.data`), a conditional U-Net (:mod:`.unet`), the variational diffusion model
(:mod:`.vdm`), the concept classifier (:mod:`.classifier`), concept-space measures
(:mod:`.concept_space`), presets and the resumable sweep (:mod:`.sweep`)."""
